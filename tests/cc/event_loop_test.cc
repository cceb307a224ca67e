// The event loop: timers (periodic, one-shot, deletion from inside callbacks), and streams
// through io_uring beside epoll's files.
#include "net/event_loop.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "check.h"

TEST_CASE(TimersOneShotPeriodicAndDeletion) {
  net::EventLoop loop(64);
  int periodic = 0, once = 0, deleted_ran = 0;
  int tick = loop.AddTimer(1, [&] { periodic++; });
  int doomed = loop.AddOneShot(50, [&] { deleted_ran++; });
  loop.AddOneShot(5, [&] {
    once++;
    loop.DelTimer(doomed);  // another timer, not yet due
    loop.DelTimer(12345);   // unknown ids are ignored
    // A timer added from a callback runs later, not in this pass.
    loop.AddOneShot(5, [&] {
      loop.DelTimer(tick);  // a periodic one, from inside a callback
      loop.AddOneShot(0, [&] { loop.Stop(); });
    });
  });
  loop.Run();
  CHECK_EQ(once, 1);
  CHECK_EQ(deleted_ran, 0);
  CHECK(periodic >= 2);
  int seen = periodic;
  // The periodic timer is gone: another run of the loop does not call it.
  bool second_run = false;
  loop.AddOneShot(5, [&] {
    second_run = true;
    loop.Stop();
  });
  loop.Run();
  CHECK(second_run);
  CHECK_EQ(periodic, seen);
}

TEST_CASE(TimerDeletesItself) {
  net::EventLoop loop(64);
  int runs = 0, id = 0;
  id = loop.AddTimer(1, [&] {
    runs++;
    loop.DelTimer(id);
  });
  loop.AddOneShot(20, [&] { loop.Stop(); });
  loop.Run();
  CHECK_EQ(runs, 1);
}

// --- streams through io_uring (EnableUring)

namespace {
struct StreamLog {
  std::string input;
  int ends = 0, end_code = 1;
  std::vector<ssize_t> sent;
};
void LogStream(int, void* data, int event, const char* bytes, ssize_t n) {
  auto* log = static_cast<StreamLog*>(data);
  if (event == net::kStreamInput) log->input.append(bytes, static_cast<size_t>(n));
  if (event == net::kStreamEnd) {
    log->ends++;
    log->end_code = static_cast<int>(n);
  }
  if (event == net::kStreamSent) log->sent.push_back(n);
}
// Runs the loop until done() holds or 2 s passed.
template <typename Done>
void RunUntil(net::EventLoop& loop, Done done) {
  int poll = loop.AddTimer(1, [&] {
    if (done()) loop.Stop();
  });
  int limit = loop.AddOneShot(2000, [&] { loop.Stop(); });
  loop.Run();
  loop.DelTimer(poll);
  loop.DelTimer(limit);
}
// A ring, or false where the kernel or a sandbox refuses io_uring (not this code's failure:
// the server then runs on epoll, which the rest of the suite covers).
bool UringHere(net::EventLoop& loop) {
  if (loop.EnableUring()) return true;
  int e = errno;
  fprintf(stderr, "  (io_uring not available here: %s)\n", strerror(e));
  if (e != ENOSYS && e != EPERM && e != EINVAL && e != EOPNOTSUPP) check::failures++;
  return false;
}
int SocketPair(int sv[2]) {
  int r = socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv);
  return r;
}
// A ring and one stream: sv[0] the loop's end, sv[1] the peer's; `ok` false where there is no
// ring (see UringHere) or the stream could not be added (a failure).
struct OneStream {
  net::EventLoop loop{64};
  int sv[2] = {-1, -1};
  StreamLog log;
  bool ok = false;
  OneStream() {
    if (!UringHere(loop)) return;
    ok = SocketPair(sv) == 0 && loop.AddStream(sv[0], LogStream, &log);
    if (!ok) check::failures++;
  }
  ~OneStream() {
    if (sv[0] >= 0) {
      loop.DelStream(sv[0]);
      close(sv[0]);
    }
    if (sv[1] >= 0) close(sv[1]);
  }
};
}  // namespace

TEST_CASE(UringStreamInputSendAndEnd) {
  OneStream f;
  if (!f.ok) return;
  auto& [loop, sv, log, ok] = f;
  CHECK(loop.uring());
  CHECK_EQ(write(sv[1], "hello", 5), 5);
  RunUntil(loop, [&] { return log.input.size() == 5; });
  CHECK_EQ(log.input, std::string("hello"));
  // A queued send goes out with the next wait; its result comes back as kStreamSent.
  std::string reply = "+world\r\n";
  loop.QueueSend(sv[0], reply.data(), reply.size());
  RunUntil(loop, [&] { return !log.sent.empty(); });
  CHECK_EQ(log.sent.size(), 1u);
  CHECK_EQ(log.sent[0], static_cast<ssize_t>(reply.size()));
  char buf[64];
  CHECK_EQ(read(sv[1], buf, sizeof(buf)), static_cast<ssize_t>(reply.size()));
  CHECK_EQ(std::string(buf, reply.size()), reply);
  // More input, in pieces, in order.
  for (int i = 0; i < 50; i++) CHECK_EQ(write(sv[1], "0123456789", 10), 10);
  RunUntil(loop, [&] { return log.input.size() == 505; });
  CHECK_EQ(log.input.size(), 505u);
  CHECK_EQ(log.input.substr(495), std::string("0123456789"));
  // The peer's close: kStreamEnd with 0, once.
  close(sv[1]);
  sv[1] = -1;
  RunUntil(loop, [&] { return log.ends > 0; });
  CHECK_EQ(log.ends, 1);
  CHECK_EQ(log.end_code, 0);
}

TEST_CASE(UringSendToAFullSocketNeverBlocks) {
  OneStream f;
  if (!f.ok) return;
  auto& [loop, sv, log, ok] = f;
  std::string chunk(4096, 'x');
  size_t filled = 0;
  while (write(sv[0], chunk.data(), chunk.size()) > 0) filled += chunk.size();
  CHECK_EQ(errno, EAGAIN);
  loop.QueueSend(sv[0], chunk.data(), chunk.size());
  RunUntil(loop, [&] { return !log.sent.empty(); });
  CHECK_EQ(log.sent.size(), 1u);
  CHECK_EQ(log.sent[0], static_cast<ssize_t>(-EAGAIN));  // not armed for later
  // Once the peer reads, a send goes through again.
  std::string sink(filled + 4096, '\0');
  while (read(sv[1], sink.data(), sink.size()) > 0) {
  }
  loop.QueueSend(sv[0], chunk.data(), 100);
  RunUntil(loop, [&] { return log.sent.size() == 2; });
  CHECK_EQ(log.sent.size(), 2u);
  CHECK_EQ(log.sent[1], 100);
}

// A pass that sent blocks in its wait like any other: the sends' own completions, posted while
// they are submitted, do not end it (they did, and each such pass took a second call to sleep).
TEST_CASE(UringSendsOwnCompletionsDoNotEndTheWait) {
  OneStream f;
  if (!f.ok) return;
  auto& [loop, sv, log, ok] = f;
  int passes = 0;
  std::string reply = "+OK\r\n";
  loop.SetBeforeSleep([&] {
    if (passes++ == 0) loop.QueueSend(sv[0], reply.data(), reply.size());
  });
  loop.AddOneShot(200, [&] { loop.Stop(); });
  loop.Run();
  loop.SetBeforeSleep(nullptr);
  CHECK_EQ(passes, 1);  // one wait, ended by the timer
  CHECK_EQ(log.sent.size(), 1u);
  CHECK_EQ(log.sent[0], static_cast<ssize_t>(reply.size()));
}

TEST_CASE(UringPausedStreamTakesNoInputUntilResumed) {
  OneStream f;
  if (!f.ok) return;
  auto& [loop, sv, log, ok] = f;
  CHECK_EQ(write(sv[1], "a", 1), 1);
  RunUntil(loop, [&] { return log.input == "a"; });
  loop.PauseStream(sv[0]);
  int passes = 0;
  RunUntil(loop, [&] { return ++passes == 20; });  // the cancel is taken, 20 passes
  CHECK_EQ(write(sv[1], "bc", 2), 2);
  passes = 0;
  RunUntil(loop, [&] { return ++passes == 20; });
  CHECK_EQ(log.input, std::string("a"));  // the socket holds it
  loop.ResumeStream(sv[0]);
  RunUntil(loop, [&] { return log.input.size() == 3; });
  CHECK_EQ(log.input, std::string("abc"));
  // Paused and resumed before the cancel is taken: input still flows, once.
  loop.PauseStream(sv[0]);
  loop.ResumeStream(sv[0]);
  CHECK_EQ(write(sv[1], "d", 1), 1);
  RunUntil(loop, [&] { return log.input.size() == 4; });
  CHECK_EQ(log.input, std::string("abcd"));
}

TEST_CASE(UringDeletedStreamClosesAndItsFdIsReusedCleanly) {
  net::EventLoop loop(64);
  if (!UringHere(loop)) return;
  int a[2];
  CHECK_EQ(SocketPair(a), 0);
  StreamLog first, second;
  CHECK(loop.AddStream(a[0], LogStream, &first));
  // The peer sent something the old stream will never take.
  CHECK_EQ(write(a[1], "old", 3), 3);
  // A send queued just before the delete still goes out, before the close.
  std::string last = "-ERR bye\r\n";
  loop.QueueSend(a[0], last.data(), last.size());
  int fd = a[0];
  loop.DelStream(fd);
  close(fd);
  // Its number goes to a new stream before the loop takes the old one's completions (a
  // client accepted in the pass that closed another): none of them reaches the new one.
  int b[2];
  CHECK_EQ(SocketPair(b), 0);
  if (b[0] != fd) {
    if (b[1] == fd) {
      b[1] = dup(fd);
      CHECK(b[1] >= 0);
    }
    CHECK_EQ(dup2(b[0], fd), fd);
    close(b[0]);
    b[0] = fd;
  }
  CHECK(loop.AddStream(b[0], LogStream, &second));
  CHECK_EQ(write(b[1], "new", 3), 3);
  RunUntil(loop, [&] { return second.input.size() == 3; });
  int passes = 0;
  RunUntil(loop, [&] { return ++passes == 5; });
  CHECK_EQ(second.input, std::string("new"));
  CHECK_EQ(second.sent.size(), 0u);  // the old send's result is not the new stream's
  CHECK_EQ(second.ends, 0);
  CHECK_EQ(first.input, std::string(""));
  CHECK_EQ(first.sent.size(), 0u);
  CHECK_EQ(first.ends, 0);
  // The old peer got the reply, then the end of its stream.
  char buf[64];
  CHECK_EQ(read(a[1], buf, sizeof(buf)), static_cast<ssize_t>(last.size()));
  CHECK_EQ(std::string(buf, last.size()), last);
  CHECK_EQ(read(a[1], buf, sizeof(buf)), 0);
  close(a[1]);
  loop.DelStream(b[0]);
  close(b[0]);
  close(b[1]);
}

TEST_CASE(UringLoopStillServesEpollFiles) {
  net::EventLoop loop(64);
  if (!UringHere(loop)) return;
  int p[2];
  CHECK_EQ(pipe2(p, O_NONBLOCK | O_CLOEXEC), 0);
  static int reads = 0;
  reads = 0;
  CHECK(loop.AddFile(
      p[0], net::kReadable,
      [](int fd, void*, int) {
        char c;
        // One byte a call: level-triggered, the rest must come in later passes.
        if (read(fd, &c, 1) == 1) reads++;
      },
      nullptr));
  CHECK_EQ(write(p[1], "xyz", 3), 3);
  RunUntil(loop, [&] { return reads == 3; });
  CHECK_EQ(reads, 3);
  loop.DelFile(p[0], net::kReadable);
  close(p[0]);
  close(p[1]);
}
