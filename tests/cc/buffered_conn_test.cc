// The buffered connection on a socket pair: write-through, queueing when the socket is full,
// partial writes up to an offset (the replica link's FULLRESYNC line before its snapshot),
// reads, end of file, and compaction.
#include "net/buffered_conn.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "check.h"

namespace {

struct Pair {
  int a = -1, b = -1;
  Pair() {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0) {
      a = fds[0];
      b = fds[1];
      fcntl(a, F_SETFL, O_NONBLOCK);
      fcntl(b, F_SETFL, O_NONBLOCK);
    }
  }
  ~Pair() {
    if (a >= 0) close(a);
    if (b >= 0) close(b);
  }
};

std::string Drain(int fd) {
  std::string got;
  char buf[65536];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) got.append(buf, static_cast<size_t>(n));
  return got;
}

}  // namespace

TEST_CASE(BufferedConnSendWritesThroughThenQueues) {
  Pair p;
  CHECK(p.a >= 0);
  net::BufferedConn c;
  c.fd = p.a;
  net::IoResult r = c.Send("hello");
  CHECK(r.status == net::IoResult::kOk);
  CHECK_EQ(r.bytes, 5u);
  CHECK(!c.Pending());
  CHECK_EQ(Drain(p.b), std::string("hello"));
  // Fill the socket: what it does not take is queued, in order.
  std::string big(8 << 20, 'x');
  c.Send(big);
  CHECK(c.Pending());
  c.Send("tail");
  std::string got;
  while (c.Pending()) {
    got += Drain(p.b);
    r = c.Write();
    CHECK(!r.Failed());
  }
  got += Drain(p.b);
  CHECK_EQ(got.size(), big.size() + 4);
  CHECK_EQ(got.substr(got.size() - 4), std::string("tail"));
  CHECK_EQ(c.out.size(), 0u);  // all written: the queue is empty again
}

TEST_CASE(BufferedConnWriteUpToKeepsOffsets) {
  Pair p;
  net::BufferedConn c;
  c.fd = p.a;
  c.out = "+FULLRESYNC id 0\r\nSTREAM";
  size_t stream_start = c.out.find("STREAM");
  net::IoResult r = c.Write(stream_start);
  CHECK(r.status == net::IoResult::kOk);
  CHECK_EQ(c.out_sent, stream_start);  // stopped at the offset, buffer kept
  CHECK_EQ(c.out.substr(stream_start), std::string("STREAM"));
  CHECK_EQ(Drain(p.b), std::string("+FULLRESYNC id 0\r\n"));
  // Written up to exactly its end with an offset: still kept (offsets stay valid).
  c.Write(c.out.size());
  CHECK_EQ(c.out_sent, c.out.size());
  CHECK(!c.Pending());
  c.Write();
  CHECK_EQ(c.out.size(), 0u);
  CHECK_EQ(c.out_sent, 0u);
  // max_bytes bounds one call.
  c.out = std::string(1000, 'y');
  r = c.Write(SIZE_MAX, 100);
  CHECK_EQ(r.bytes, 100u);
  CHECK_EQ(c.PendingBytes(), 900u);
  c.CompactOut();
  CHECK_EQ(c.out.size(), 900u);
  CHECK_EQ(c.out_sent, 0u);
}

TEST_CASE(BufferedConnReadAppendsAndSeesEof) {
  Pair p;
  net::BufferedConn c;
  c.fd = p.a;
  CHECK(c.Read(4096).status == net::IoResult::kAgain);
  CHECK_EQ(write(p.b, "abc", 3), 3);
  net::IoResult r = c.Read(4096);
  CHECK(r.status == net::IoResult::kOk);
  CHECK_EQ(r.bytes, 3u);
  CHECK_EQ(write(p.b, "defg", 4), 4);
  r = c.Read(2);  // at most max bytes
  CHECK_EQ(r.bytes, 2u);
  CHECK_EQ(c.in, std::string("abcde"));
  c.in_pos = 4;
  c.CompactIn();
  CHECK_EQ(c.in, std::string("e"));
  CHECK_EQ(c.in_pos, 0u);
  close(p.b);
  p.b = -1;
  CHECK(c.Read(4096).status == net::IoResult::kOk);  // "fg"
  CHECK(c.Read(4096).status == net::IoResult::kClosed);
  CHECK_EQ(c.in, std::string("efg"));
  // Writing to a closed peer fails (the server ignores SIGPIPE; so does this test).
  signal(SIGPIPE, SIG_IGN);
  CHECK(c.Send(std::string(1 << 20, 'z')).Failed() || c.Write().Failed());
}
