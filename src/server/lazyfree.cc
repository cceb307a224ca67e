#include "server/lazyfree.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <variant>

#ifdef USE_JEMALLOC
#include <jemalloc/jemalloc.h>
#endif

#include "base/thread_signals.h"
#include "base/util.h"
#include "db/hash.h"
#include "db/set.h"
#include "db/stream.h"
#include "db/zset.h"
#include "ds/quicklist.h"

namespace server {

namespace {

struct Tables {
  std::vector<std::unique_ptr<db::SlotTables>> t;
  size_t keys;
};
using Job = std::variant<db::Obj*, Tables>;

struct LazyFree {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Job> queue;
  bool started = false;
  std::atomic<size_t> pending{0};
  std::atomic<uint64_t> freed{0};
  // The thread's own allocator totals, published once it runs (jemalloc only).
  std::atomic<const uint64_t*> allocated{nullptr}, deallocated{nullptr};
};
LazyFree& L() {
  static LazyFree* l = new LazyFree();  // never destroyed: the thread may outlive statics
  return *l;
}

void Loop() {
  base::BlockSignalInThisThread(SIGALRM);  // the watchdog's trace is the main thread's
  LazyFree& l = L();
#ifdef USE_JEMALLOC
  uint64_t* a = nullptr;
  uint64_t* d = nullptr;
  size_t sz = sizeof(a);
  if (mallctl("thread.allocatedp", &a, &sz, nullptr, 0) == 0 &&
      mallctl("thread.deallocatedp", &d, &sz, nullptr, 0) == 0) {
    l.allocated.store(a);
    l.deallocated.store(d);
  }
#endif
  std::unique_lock lk(l.mu);
  for (;;) {
    l.cv.wait(lk, [&] { return !l.queue.empty(); });
    Job j = std::move(l.queue.front());
    l.queue.pop_front();
    lk.unlock();
    size_t n = 1;
    if (auto* o = std::get_if<db::Obj*>(&j)) {
      db::FreeObj(*o);
    } else {
      auto& t = std::get<Tables>(j);
      n = t.keys;
      t.t.clear();
    }
    j = Job{};  // frees what the job itself held, here
    l.freed.fetch_add(n);
    l.pending.fetch_sub(n);
    lk.lock();
  }
}

void Push(Job j, size_t n) {
  LazyFree& l = L();
  l.pending.fetch_add(n);
  {
    std::lock_guard lk(l.mu);
    if (!l.started) {
      l.started = true;
      std::thread(Loop).detach();
    }
    l.queue.push_back(std::move(j));
  }
  l.cv.notify_one();
}

}  // namespace

size_t FreeEffort(const db::Obj* o) {
  switch (o->type()) {
    case db::kList:
      return o->enc() == db::kEncQuicklist
                 ? static_cast<const ds::Quicklist*>(o->ptr())->NodeCount()
                 : 1;
    case db::kSet:
      return o->enc() == db::kEncHashtable ? db::SetLen(o) : 1;
    case db::kZSet:
      return o->enc() == db::kEncSkiplist ? db::ZLen(o) : 1;
    case db::kHash:
      return o->enc() == db::kEncHashtable ? db::HashLen(o) : 1;
    case db::kStream: {
      const db::Stream* s = db::GetStream(o);
      size_t effort = s->nodes.size();
      for (auto& [name, g] : s->groups) effort += 1 + g->pel.size();
      return effort;
    }
    default:
      return 1;
  }
}

void FreeObjLazily(db::Obj* o) {
  if (!o) return;
  if (FreeEffort(o) <= kLazyFreeThreshold) return db::FreeObj(o);
  Push(Job{o}, 1);
}

void FreeTablesLazily(std::vector<std::unique_ptr<db::SlotTables>> tables, size_t keys) {
  if (tables.empty()) return;
  Push(Job{Tables{std::move(tables), keys}}, keys);
}

void EmptyDb(db::Db* d, bool lazy) {
  if (!lazy) return d->Clear();
  size_t keys = d->Size();
  FreeTablesLazily(d->TakeAll(), keys);
}

bool FlushModeLazy(const std::string_view* arg, bool dflt, bool* lazy) {
  if (!arg) {
    *lazy = dflt;
    return true;
  }
  if (!base::EqualsNoCase(*arg, "sync") && !base::EqualsNoCase(*arg, "async")) return false;
  *lazy = base::EqualsNoCase(*arg, "async");
  return true;
}

size_t LazyFreePending() { return L().pending.load(); }
uint64_t LazyFreedObjects() { return L().freed.load(); }
void LazyFreeResetStats() { L().freed.store(0); }

int64_t LazyFreeNetFreedBytes() {
  const uint64_t* a = L().allocated.load();
  const uint64_t* d = L().deallocated.load();
  if (!a || !d) return 0;
  // The thread's own counters, read as it updates them: an aligned 64-bit load is whole.
  return static_cast<int64_t>(__atomic_load_n(d, __ATOMIC_RELAXED) -
                              __atomic_load_n(a, __ATOMIC_RELAXED));
}

}  // namespace server
