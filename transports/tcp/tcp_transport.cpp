// -t tcp: the lab's schedules over plain TCP sockets, one connection per pair of ranks, as
// Gloo's tcp transport does; no library between the schedule and the kernel. ARLAB_SOCKET_IFNAME
// picks the interface (tcp_socket.h).
//
// Setup: every rank listens, the bootstrap spreads the addresses, each rank connects to every
// lower rank and accepts every higher one; the first bytes on a connection name the connecting
// rank. Data: each message is a 16-byte header (magic, tag, bytes) and its payload, sent in
// posting order. A receive posted before its header arrives takes the payload straight into
// its buffer. A header nobody has asked for yet is read into a buffer of its own when it is
// small, or when the receiver is waiting for another tag from that peer (so posting order
// cannot deadlock); a large one is left in the socket until its receive is posted, and TCP's
// flow control holds the sender: no extra copy of a large payload.
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <list>
#include <memory>
#include <vector>

#include "transports/progress_passes.h"
#include "transports/registry.h"
#include "transports/slot_table.h"
#include "transports/tcp/tcp_socket.h"

namespace arlab {
namespace {

constexpr uint32_t kMagic = 0x61726c62;  // "arlb"
constexpr uint32_t kHelloMagic = 0x68656c6f;
constexpr size_t kEagerBytes = 64 * 1024;  // unexpected headers up to this size are read at once
constexpr double kSetupTimeoutS = 60;
constexpr RequestId kNone = ~RequestId{0};

struct Header {
  uint32_t magic;
  uint32_t tag;
  uint64_t bytes;
};
struct Hello {
  uint32_t magic;
  int32_t rank;
  int32_t size;
};

struct Request {
  bool send = false;
  bool done = false;
  int peer = -1;
  char* data = nullptr;
  size_t bytes = 0;
  uint32_t tag = 0;
  ProgressPasses::Mark seen = 0;  // progress_passes.h
};

// A message that arrived before its receive was posted.
struct Unexpected {
  uint32_t tag;
  std::vector<char> data;
  bool complete = false;
  RequestId claimed = kNone;  // a receive posted while the payload was still arriving
};

struct Peer {
  tcp::Fd fd;
  std::string name;  // "rank 2 (10.0.0.2:40123)"
  bool closed = false;
  // Sending: the queue in posting order; the head's header and payload go out as one stream.
  std::deque<RequestId> sends;
  Header out_header{};
  size_t out_done = 0;  // bytes of the head's header + payload already sent
  // Receiving: a header, then its payload into a posted receive or an Unexpected.
  enum class In { Header, Stalled, Payload } in = In::Header;
  Header in_header{};
  size_t in_header_done = 0;
  char* in_target = nullptr;
  size_t in_done = 0;
  RequestId in_request = kNone;
  std::list<Unexpected>::iterator in_unexpected;  // where the payload goes when in_request is kNone
  std::vector<RequestId> posted;  // receives not yet matched to a header, in posting order
  std::list<Unexpected> unexpected;
};

class TcpTransport final : public Transport {
 public:
  explicit TcpTransport(Bootstrap& bootstrap) : bootstrap_(bootstrap), peers_(bootstrap.size()) {
    address_ = tcp::choose_interface_address();
    uint16_t port = 0;
    tcp::Fd listener = tcp::listen_on(address_, &port);
    const std::vector<std::string> all = bootstrap.gather_strings(address_ + ":" + std::to_string(port));
    const int me = rank(), n = size();
    const Hello hello{kHelloMagic, me, n};
    // Connect to every lower rank (their backlogs hold the connections), then accept the higher.
    for (int peer = 0; peer < me; ++peer) {
      const size_t colon = all[peer].rfind(':');
      peers_[peer].name = "rank " + std::to_string(peer) + " (" + all[peer] + ")";
      peers_[peer].fd = tcp::connect_to(all[peer].substr(0, colon), static_cast<uint16_t>(std::stoi(all[peer].substr(colon + 1))),
                                        kSetupTimeoutS);
      tcp::write_exactly(peers_[peer].fd.get(), &hello, sizeof hello, "hello to " + peers_[peer].name);
    }
    for (int accepted = me + 1; accepted < n; ++accepted) {
      tcp::Fd fd = tcp::accept_from(listener.get(), all[me], kSetupTimeoutS);
      Hello theirs{};
      tcp::read_exactly(fd.get(), &theirs, sizeof theirs, "hello on " + all[me]);
      if (theirs.magic != kHelloMagic || theirs.size != n || theirs.rank <= me || theirs.rank >= n ||
          peers_[theirs.rank].fd.get() >= 0)
        throw TransportError("-t tcp: unexpected connection on " + all[me] + " (not a rank of this run above " +
                             std::to_string(me) + ")");
      peers_[theirs.rank].name = "rank " + std::to_string(theirs.rank) + " (" + all[theirs.rank] + ")";
      peers_[theirs.rank].fd = std::move(fd);
    }
    for (Peer& peer : peers_)
      if (peer.fd.get() >= 0) tcp::make_data_socket(peer.fd.get(), peer.name);
  }

  ~TcpTransport() override {
    // Everyone is done reading before anyone closes, so no rank sees a peer's EOF mid-run.
    try {
      bootstrap_.barrier();
    } catch (...) {
    }
  }

  std::string name() const override { return "tcp"; }
  TransportCapabilities capabilities() const override { return {}; }
  int rank() const override { return bootstrap_.rank(); }
  int size() const override { return bootstrap_.size(); }
  std::string library_version() const override { return "sockets on " + address_; }

  RequestId isend(int peer, const void* data, size_t bytes, uint32_t tag) override {
    const RequestId id = track({true, false, check_peer(peer, "isend"), static_cast<char*>(const_cast<void*>(data)), bytes, tag});
    peers_[peer].sends.push_back(id);
    return id;
  }

  RequestId irecv(int peer, void* data, size_t bytes, uint32_t tag) override {
    const RequestId id = track({false, false, check_peer(peer, "irecv"), static_cast<char*>(data), bytes, tag});
    Peer& p = peers_[peer];
    // The first unclaimed early arrival with this tag is this receive's message.
    for (auto it = p.unexpected.begin(); it != p.unexpected.end(); ++it) {
      if (it->tag != tag || it->claimed != kNone) continue;
      if (it->complete) {
        deliver(*it, id);
        p.unexpected.erase(it);
      } else {
        it->claimed = id;
      }
      return id;
    }
    p.posted.push_back(id);
    return id;
  }

  // One poll() per pass over the requests in flight, not one per test() (progress_passes.h).
  bool test(RequestId id) override {
    Request& r = requests_[id];
    if (!r.done && passes_.start_pass(r.seen)) progress();
    if (!r.done) return false;
    requests_.release(id);
    return true;
  }

  void barrier() override { bootstrap_.barrier(); }

 private:
  int check_peer(int peer, const char* call) const {
    if (peer < 0 || peer >= size() || peer == rank())
      throw TransportError(std::string(call) + "(peer " + std::to_string(peer) + "): not another rank of " +
                           std::to_string(size()));
    return peer;
  }

  RequestId track(Request request) {
    request.seen = passes_.current();  // its first test() polls
    return requests_.add(request);
  }

  // Copies an early arrival into the receive that asked for it and completes the receive.
  void deliver(const Unexpected& message, RequestId id) {
    Request& r = requests_[id];
    check_fits(message.data.size(), r, peers_[r.peer]);
    if (!message.data.empty()) std::memcpy(r.data, message.data.data(), message.data.size());
    r.done = true;
  }

  static void check_fits(size_t bytes, const Request& r, const Peer& p) {
    if (bytes > r.bytes)
      throw TransportError("recv from " + p.name + ": message " + std::to_string(r.tag) + " has " + std::to_string(bytes) +
                           " bytes, the receive posted for it " + std::to_string(r.bytes));
  }

  // One poll over every open connection, then as much sending and receiving as the sockets take.
  void progress() {
    pollfds_.clear();
    polled_.clear();
    for (int i = 0; i < size(); ++i) {
      Peer& p = peers_[i];
      if (p.fd.get() < 0 || p.closed) continue;
      if (p.in == Peer::In::Stalled) try_dispatch(p);  // a receive may have been posted since
      const short events = static_cast<short>((p.in == Peer::In::Stalled ? 0 : POLLIN) | (p.sends.empty() ? 0 : POLLOUT));
      if (events == 0) continue;
      pollfds_.push_back({p.fd.get(), events, 0});
      polled_.push_back(i);
    }
    if (pollfds_.empty()) return;
    if (::poll(pollfds_.data(), pollfds_.size(), 0) < 0 && errno != EINTR) tcp::throw_errno("poll");
    for (size_t k = 0; k < pollfds_.size(); ++k) {
      Peer& p = peers_[polled_[k]];
      if (pollfds_[k].revents & (POLLOUT | POLLERR | POLLHUP)) send_some(p);
      if (pollfds_[k].revents & (POLLIN | POLLERR | POLLHUP)) receive_some(p);
    }
  }

  // Writes the queued messages' headers and payloads until the socket is full.
  void send_some(Peer& p) {
    while (!p.sends.empty()) {
      Request& r = requests_[p.sends.front()];
      if (p.out_done == 0) p.out_header = {kMagic, r.tag, r.bytes};
      iovec parts[2];
      int count = 0;
      if (p.out_done < sizeof(Header))
        parts[count++] = {reinterpret_cast<char*>(&p.out_header) + p.out_done, sizeof(Header) - p.out_done};
      const size_t payload_done = p.out_done > sizeof(Header) ? p.out_done - sizeof(Header) : 0;
      if (payload_done < r.bytes) parts[count++] = {r.data + payload_done, r.bytes - payload_done};
      msghdr message{};
      message.msg_iov = parts;
      message.msg_iovlen = static_cast<size_t>(count);
      const ssize_t n = ::sendmsg(p.fd.get(), &message, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
      if (n < 0) tcp::throw_errno("sendmsg(" + std::to_string(r.bytes) + " bytes to " + p.name + ")");
      p.out_done += static_cast<size_t>(n);
      if (p.out_done < sizeof(Header) + r.bytes) return;  // a short write: the socket is full
      r.done = true;
      p.sends.pop_front();
      p.out_done = 0;
    }
  }

  // Reads headers and payloads until the socket is empty or a large message waits for its receive.
  void receive_some(Peer& p) {
    for (;;) {
      if (p.in == Peer::In::Stalled) return;
      char* target = p.in == Peer::In::Header ? reinterpret_cast<char*>(&p.in_header) + p.in_header_done
                                              : p.in_target + p.in_done;
      const size_t want = p.in == Peer::In::Header ? sizeof(Header) - p.in_header_done : p.in_header.bytes - p.in_done;
      if (want > 0) {
        const ssize_t n = ::recv(p.fd.get(), target, want, MSG_DONTWAIT);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
        if (n < 0) tcp::throw_errno("recv(from " + p.name + ")");
        if (n == 0) return peer_closed(p);
        (p.in == Peer::In::Header ? p.in_header_done : p.in_done) += static_cast<size_t>(n);
        if (static_cast<size_t>(n) < want) return;  // a short read: the socket is empty for now
      }
      if (p.in == Peer::In::Header) {
        if (p.in_header.magic != kMagic)
          throw TransportError("recv(from " + p.name + "): the stream is corrupt (bad header magic)");
        p.in = Peer::In::Stalled;
        try_dispatch(p);
      } else {
        finish_payload(p);
      }
    }
  }

  // Chooses where a received header's payload goes: its posted receive, an early-arrival buffer,
  // or nowhere yet (Stalled).
  void try_dispatch(Peer& p) {
    for (auto it = p.posted.begin(); it != p.posted.end(); ++it) {
      Request& r = requests_[*it];
      if (r.tag != p.in_header.tag) continue;
      check_fits(p.in_header.bytes, r, p);
      p.in_request = *it;
      p.in_target = r.data;
      p.posted.erase(it);
      return start_payload(p);
    }
    if (p.in_header.bytes > kEagerBytes && p.posted.empty()) return;  // wait for its receive
    p.in_unexpected = p.unexpected.insert(p.unexpected.end(), {p.in_header.tag, std::vector<char>(p.in_header.bytes)});
    p.in_target = p.in_unexpected->data.data();
    start_payload(p);
  }

  void start_payload(Peer& p) {
    p.in = Peer::In::Payload;
    p.in_done = 0;
    if (p.in_header.bytes == 0) finish_payload(p);
  }

  void finish_payload(Peer& p) {
    if (p.in_request != kNone) {
      requests_[p.in_request].done = true;
    } else {
      Unexpected& u = *p.in_unexpected;
      u.complete = true;
      if (u.claimed != kNone) {
        deliver(u, u.claimed);
        p.unexpected.erase(p.in_unexpected);
      }
    }
    p.in = Peer::In::Header;
    p.in_header_done = 0;
    p.in_request = kNone;
  }

  // EOF: an error when this rank still expects bytes from the peer, the end of it otherwise.
  void peer_closed(Peer& p) {
    bool waiting = !p.posted.empty() || p.in != Peer::In::Header || p.in_header_done > 0;
    for (const Unexpected& u : p.unexpected) waiting = waiting || u.claimed != kNone;
    if (waiting) throw TransportError("recv(from " + p.name + "): connection closed by the peer mid-message");
    p.closed = true;
  }

  Bootstrap& bootstrap_;
  std::string address_;
  std::vector<Peer> peers_;
  SlotTable<Request> requests_;
  ProgressPasses passes_;
  std::vector<pollfd> pollfds_;
  std::vector<int> polled_;
};

}  // namespace

std::unique_ptr<Transport> make_tcp_transport(const TransportContext& context) {
  return std::make_unique<TcpTransport>(host_memory_bootstrap(context, "tcp"));
}

}  // namespace arlab
