// Lazy free: what goes to the thread (Valkey's effort rule) and that what it frees is freed
// once, whole (run under ASan by make test-sanitize).
#include "server/lazyfree.h"

#include <chrono>
#include <string>
#include <thread>

#include "check.h"
#include "db/set.h"
#include "db/zset.h"

namespace {

// The types' free functions, as the server registers them at start.
void RegisterTypes() {
  db::RegisterSetType();
  db::RegisterZSetType();
}

void WaitIdle() {
  for (int i = 0; i < 5000 && server::LazyFreePending() > 0; i++)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

// A sorted set of n members, in a skiplist when `skiplist` (whatever n), else as it comes.
db::Obj* BigZSet(const std::string& key, int n, bool skiplist = true) {
  db::Obj* z = db::NewZSet(key, static_cast<size_t>(n), 16);
  if (skiplist) db::ZReserveMembers(z, 1000);
  for (int i = 0; i < n; i++) db::ZSetScore(z, "m" + std::to_string(i), i);
  return z;
}

}  // namespace

TEST_CASE(LazyFreeEffortRows) {
  RegisterTypes();
  db::Obj* s = db::NewString("s", std::string(100000, 'x'));
  CHECK_EQ(server::FreeEffort(s), 1u);  // a string, however long
  db::FreeObj(s);
  db::Obj* small = BigZSet("z", 10, false);  // a listpack
  CHECK_EQ(server::FreeEffort(small), 1u);
  db::FreeObj(small);
  db::Obj* z = BigZSet("z", 1000);  // a skiplist: its elements
  CHECK_EQ(server::FreeEffort(z), 1000u);
  db::FreeObj(z);
  db::Obj* set = db::NewSet("t", "a");
  db::SetReserve(set, 1000);
  for (int i = 0; i < 300; i++) db::SetAdd(set, "a" + std::to_string(i));
  CHECK_EQ(server::FreeEffort(set), 300u);
  db::FreeObj(set);
}

TEST_CASE(LazyFreeObjectsAndDbs) {
  RegisterTypes();
  WaitIdle();
  uint64_t freed = server::LazyFreedObjects();
  // At the threshold, freed here; above it, on the thread.
  server::FreeObjLazily(BigZSet("a", 64));
  server::FreeObjLazily(BigZSet("b", 65));
  server::FreeObjLazily(BigZSet("c", 5000));
  WaitIdle();
  CHECK_EQ(server::LazyFreePending(), 0u);
  CHECK_EQ(server::LazyFreedObjects(), freed + 2);
  // A db's keys go whole, counted as keys, and the db is empty at once.
  db::Db d(0, /*per_slot=*/true);
  for (int i = 0; i < 3000; i++) d.Add(db::NewString("k" + std::to_string(i), "v"));
  d.Add(BigZSet("{x}big", 2000));
  server::EmptyDb(&d, true);
  CHECK_EQ(d.Size(), 0u);
  CHECK(d.Find("k1") == nullptr);
  WaitIdle();
  CHECK_EQ(server::LazyFreedObjects(), freed + 2 + 3001);
  // Not lazy: freed here, nothing counted.
  d.Add(db::NewString("k", "v"));
  server::EmptyDb(&d, false);
  CHECK_EQ(d.Size(), 0u);
  CHECK_EQ(server::LazyFreedObjects(), freed + 2 + 3001);
}

TEST_CASE(LazyFreeFlushModeRows) {
  struct Row {
    const char* arg;  // nullptr: none given
    bool dflt, ok, lazy;
  } rows[] = {
      {nullptr, true, true, true},  {nullptr, false, true, false}, {"SYNC", true, true, false},
      {"sync", false, true, false}, {"ASYNC", false, true, true},  {"aSyNc", true, true, true},
      {"LATER", true, false, false}, {"", true, false, false},
  };
  for (const Row& r : rows) {
    std::string_view arg = r.arg ? r.arg : "";
    bool lazy = !r.lazy;
    CHECK_EQ(server::FlushModeLazy(r.arg ? &arg : nullptr, r.dflt, &lazy), r.ok);
    if (r.ok) CHECK_EQ(lazy, r.lazy);
  }
}
