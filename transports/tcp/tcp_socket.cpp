#include "transports/tcp/tcp_socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>
#include <vector>

#include "transports/transport.h"

namespace arlab::tcp {

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
}

void throw_errno(const std::string& call) { throw TransportError(call + " failed: " + std::strerror(errno)); }

namespace {

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, ',');)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

sockaddr_in ipv4(const std::string& address, uint16_t port) {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  if (inet_pton(AF_INET, address.c_str(), &sa.sin_addr) != 1)
    throw TransportError("inet_pton(AF_INET, \"" + address + "\"): not an IPv4 address");
  return sa;
}

}  // namespace

std::string choose_interface_address() {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) throw_errno("getifaddrs");
  const char* wanted_env = std::getenv("ARLAB_SOCKET_IFNAME");
  const std::vector<std::string> wanted = wanted_env ? split_commas(wanted_env) : std::vector<std::string>{};
  std::string chosen, first_up, seen;
  // Walk the interfaces once: the first match of a wanted prefix wins, else the first that is
  // up and not loopback.
  for (ifaddrs* it = list; it; it = it->ifa_next) {
    if (!it->ifa_addr || it->ifa_addr->sa_family != AF_INET || !(it->ifa_flags & IFF_UP)) continue;
    char text[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(it->ifa_addr)->sin_addr, text, sizeof text);
    const std::string name = it->ifa_name;
    seen += (seen.empty() ? "" : ", ") + name + " " + text;
    for (const std::string& prefix : wanted)
      if (chosen.empty() && name.compare(0, prefix.size(), prefix) == 0) chosen = text;
    if (first_up.empty() && !(it->ifa_flags & IFF_LOOPBACK)) first_up = text;
  }
  freeifaddrs(list);
  if (!wanted.empty() && chosen.empty())
    throw TransportUnavailable("-t tcp: ARLAB_SOCKET_IFNAME=" + std::string(wanted_env) +
                               " matches no IPv4 interface that is up (up: " + (seen.empty() ? "none" : seen) + ")");
  if (!chosen.empty()) return chosen;
  return first_up.empty() ? "127.0.0.1" : first_up;
}

Fd listen_on(const std::string& address, uint16_t* port) {
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) throw_errno("socket(AF_INET, SOCK_STREAM)");
  sockaddr_in sa = ipv4(address, 0);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) throw_errno("bind(" + address + ":0)");
  // Every higher rank connects before this one accepts, so the backlog must hold them all.
  if (::listen(fd.get(), SOMAXCONN) != 0) throw_errno("listen(" + address + ")");
  socklen_t length = sizeof sa;
  if (::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&sa), &length) != 0) throw_errno("getsockname");
  *port = ntohs(sa.sin_port);
  return fd;
}

Fd connect_to(const std::string& address, uint16_t port, double timeout_s) {
  const std::string where = address + ":" + std::to_string(port);
  const sockaddr_in sa = ipv4(address, port);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  // Retry refused connections: a listener that is not up yet, or a full backlog.
  for (;;) {
    Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (fd.get() < 0) throw_errno("socket(AF_INET, SOCK_STREAM)");
    if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&sa), sizeof sa) == 0) return fd;
    if ((errno != ECONNREFUSED && errno != EAGAIN && errno != ETIMEDOUT) || std::chrono::steady_clock::now() > deadline)
      throw_errno("connect(" + where + ")");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

Fd accept_from(int listener, const std::string& listening_on, double timeout_s) {
  pollfd p{listener, POLLIN, 0};
  const int ready = ::poll(&p, 1, static_cast<int>(timeout_s * 1000));
  if (ready < 0) throw_errno("poll(listener " + listening_on + ")");
  if (ready == 0)
    throw TransportError("accept(" + listening_on + "): no connection within " + std::to_string(int(timeout_s)) +
                         " s (a peer could not reach this address; set ARLAB_SOCKET_IFNAME)");
  Fd fd(::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC));
  if (fd.get() < 0) throw_errno("accept(" + listening_on + ")");
  return fd;
}

void write_exactly(int fd, const void* data, size_t bytes, const std::string& what) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::send(fd, p, bytes, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw_errno("send(" + what + ")");
    p += n;
    bytes -= static_cast<size_t>(n);
  }
}

void read_exactly(int fd, void* data, size_t bytes, const std::string& what) {
  char* p = static_cast<char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::recv(fd, p, bytes, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw_errno("recv(" + what + ")");
    if (n == 0) throw TransportError("recv(" + what + "): connection closed by the peer");
    p += n;
    bytes -= static_cast<size_t>(n);
  }
}

void make_data_socket(int fd, const std::string& what) {
  const int one = 1;
  if (::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) throw_errno("setsockopt(" + what + ", TCP_NODELAY)");
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) throw_errno("fcntl(" + what + ", O_NONBLOCK)");
}

}  // namespace arlab::tcp
