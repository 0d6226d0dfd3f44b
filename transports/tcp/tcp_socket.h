// -t tcp's sockets: choosing the interface, listening, connecting, and the blocking reads and
// writes of the connection handshake. Only transports/tcp/ includes the socket headers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace arlab::tcp {

// An owned file descriptor, closed on destruction.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd();
  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

// The IPv4 address this rank listens on: the first interface that is up and whose name starts
// with one of ARLAB_SOCKET_IFNAME's comma-separated prefixes (like NCCL_SOCKET_IFNAME and
// GLOO_SOCKET_IFNAME), else the first that is up and not loopback, else 127.0.0.1.
// TransportUnavailable when ARLAB_SOCKET_IFNAME matches nothing (the message lists what is up).
std::string choose_interface_address();

// A listening socket on address, port chosen by the kernel; *port receives it.
Fd listen_on(const std::string& address, uint16_t* port);

// A connected socket to address:port, retried while refused until timeout_s has passed.
Fd connect_to(const std::string& address, uint16_t port, double timeout_s);

// The next connection on listener, or TransportError after timeout_s.
Fd accept_from(int listener, const std::string& listening_on, double timeout_s);

// Blocking exact reads and writes for the handshake; TransportError on failure or EOF.
void write_exactly(int fd, const void* data, size_t bytes, const std::string& what);
void read_exactly(int fd, void* data, size_t bytes, const std::string& what);

// TCP_NODELAY on, then O_NONBLOCK: the transport's data path.
void make_data_socket(int fd, const std::string& what);

// "call(args) failed: strerror(errno)" as a TransportError.
[[noreturn]] void throw_errno(const std::string& call);

}  // namespace arlab::tcp
