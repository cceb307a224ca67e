// Encodes propagated commands as RESP, emitting SELECT when the db changes, and hands the bytes
// to the replication stream (backlog and replicas). Nothing is encoded while nobody consumes.
#include "repl/propagate.h"

#include <charconv>

#include "repl/repl.h"

namespace repl {
namespace {
int g_stream_db = -1;
bool g_in_tx = false, g_tx_open = false;
int64_t g_bytes = 0;
std::string g_buf;

void Append(const std::vector<std::string_view>& argv) {
  char num[32];
  auto head = [&](char t, size_t n) {
    num[0] = t;
    auto r = std::to_chars(num + 1, num + 30, n);
    r.ptr[0] = '\r';
    r.ptr[1] = '\n';
    g_buf.append(num, r.ptr + 2 - num);
  };
  head('*', argv.size());
  for (auto a : argv) {
    head('$', a.size());
    g_buf.append(a);
    g_buf.append("\r\n", 2);
  }
}

void Flush() {
  g_bytes += static_cast<int64_t>(g_buf.size());
  if (!g_buf.empty()) FeedStream(g_buf);
  g_buf.clear();
}
}  // namespace

void ResetStreamDb() { g_stream_db = -1; }

void Propagate(int dbid, const std::vector<std::string_view>& argv) {
  // A replica passes on its primary's stream only: its own writes (replica-read-only no)
  // stay local and do not move its offset.
  if (!HasConsumers() || IsReplica()) {
    g_stream_db = -1;  // whoever attaches later starts with a SELECT
    return;
  }
  if (g_in_tx && !g_tx_open) {
    Append({"MULTI"});
    g_tx_open = true;
  }
  if (dbid != g_stream_db) {
    std::string id = std::to_string(dbid);
    Append({"SELECT", id});
    g_stream_db = dbid;
  }
  Append(argv);
  if (!g_in_tx) Flush();
}

void BeginTransaction() {
  g_in_tx = true;
  g_tx_open = false;
}

void EndTransaction() {
  if (g_tx_open) Append({"EXEC"});
  g_in_tx = g_tx_open = false;
  Flush();
}

int64_t StreamBytes() { return g_bytes; }
}  // namespace repl
