// Keyspace: per-slot tables in cluster mode, slot counts, SCAN across slots, and which keys
// take the running command's routed slot.
#include "db/db.h"

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <set>
#include <string>

#include "base/crc16.h"
#include "base/log.h"
#include "check.h"

TEST_CASE(DbPerSlotCountsAndScan) {
  db::Db d(0, /*per_slot=*/true);
  std::set<std::string> all;
  for (int i = 0; i < 5000; i++) {
    std::string k = "key:" + std::to_string(i);
    d.Add(db::NewString(k, "v"));
    all.insert(k);
  }
  // Keys sharing a hash tag land in one slot.
  for (int i = 0; i < 50; i++) {
    std::string k = "{user1}:" + std::to_string(i);
    d.Add(db::NewString(k, "v"));
    all.insert(k);
  }
  CHECK_EQ(d.Size(), 5050u);
  CHECK(d.CountInSlot(base::KeySlot("{user1}")) >= 50u);
  size_t total = 0;
  for (int s = 0; s < db::kSlots; s++) total += d.CountInSlot(s);
  CHECK_EQ(total, 5050u);
  std::vector<std::string_view> in_slot;
  d.KeysInSlot(base::KeySlot("{user1}"), 10, &in_slot);
  CHECK_EQ(in_slot.size(), 10u);
  // A full SCAN returns every key; the low 14 bits of the cursor name the slot in progress.
  std::set<std::string> seen;
  uint64_t cursor = 0;
  do {
    cursor = d.Scan(cursor, [&](db::Obj* o) { seen.insert(std::string(o->key())); });
  } while (cursor != 0);
  CHECK(seen == all);
  // Deleting every key of a slot frees its table; counts follow.
  for (int i = 0; i < 50; i++) CHECK(d.Delete("{user1}:" + std::to_string(i)));
  CHECK_EQ(d.Size(), 5000u);
  db::Obj* r = d.RandomKey();
  CHECK(r != nullptr);
}

TEST_CASE(DbExpireRelinksObjects) {
  db::Db d(0, false);
  d.Add(db::NewString("a", "1"));
  db::Obj* o = d.Find("a");
  o = d.SetExpire(o, 1000);
  CHECK_EQ(d.ExpiresSize(), 1u);
  CHECK_EQ(d.Find("a")->expire(), 1000);
  o = d.SetExpire(d.Find("a"), -1);
  CHECK_EQ(d.ExpiresSize(), 0u);
  CHECK_EQ(d.Find("a")->expire(), -1);
  d.Replace(d.Find("a"), db::NewString("a", "2", 5000));
  CHECK_EQ(d.ExpiresSize(), 1u);
  CHECK(d.Delete("a"));
  CHECK_EQ(d.ExpiresSize(), 0u);
}

// Sets the running command's routed keys for a scope (the environment is process-wide).
struct RoutedScope {
  explicit RoutedScope(const db::RoutedKeys* r) { db::GetEnv().routed = r; }
  ~RoutedScope() { db::GetEnv().routed = nullptr; }
};

// While a command runs, only the keys routing saw (or equal copies) take its slot; every other
// key is in its own slot, whatever the command's slot is.
TEST_CASE(DbRoutedSlotOnlyForTheRoutedKeys) {
  db::Db d(0, /*per_slot=*/true);
  const int a = base::KeySlot("{a}"), b = base::KeySlot("{b}");
  std::string_view routed_keys[] = {"{a}x"};
  db::RoutedKeys routed;
  routed.Set(a, routed_keys);
  {
    RoutedScope scope(&routed);
    d.Add(db::NewString("{b}k", "v"));
    d.Add(db::NewString(std::string("{a}x"), "1"));
    CHECK_EQ(d.CountInSlot(b), 1u);
    CHECK_EQ(d.CountInSlot(a), 1u);
    CHECK(d.Find("{b}k") != nullptr);
    CHECK(d.Find(std::string("{a}") + "x") != nullptr);
    // A scan reaches every slot, and each key it returns is found again by name.
    size_t found = 0;
    uint64_t cursor = 0;
    do {
      cursor =
          d.Scan(cursor, [&](db::Obj* o) { found += d.Find(std::string(o->key())) != nullptr; });
    } while (cursor != 0);
    CHECK_EQ(found, 2u);
    CHECK(d.Delete("{b}k"));
    CHECK_EQ(d.CountInSlot(b), 0u);
  }
  CHECK(d.Find("{a}x") != nullptr);
}

// The first kMax keys are kept, up to kMaxBytes in all; no slot, no keys.
TEST_CASE(DbRoutedKeysHoldsWhatRoutingSaw) {
  db::RoutedKeys routed;
  std::string big(db::RoutedKeys::kMaxBytes, 'k');
  std::string_view some[] = {"k1", "k2", big, "k3"};
  routed.Set(7, some);
  CHECK(routed.Holds("k1") && routed.Holds(std::string("k2")));
  CHECK(!routed.Holds(big) && !routed.Holds("k3") && !routed.Holds("k") && !routed.Holds("k12"));
  std::string_view many[] = {"k1", "k2", "k3", "k4", "k5"};
  routed.Set(7, many);
  CHECK(routed.Holds("k4") && !routed.Holds("k5"));
  routed.Set(-1, many);
  CHECK_EQ(routed.slot(), -1);
  CHECK(!routed.Holds("k1"));
}

// The routed slot is taken for those keys without hashing them. A debug build (make SANITIZE=...,
// which defines NODE_DEBUG_CHECKS) checks it against the key's own slot and aborts on a
// mismatch instead.
TEST_CASE(DbRoutedSlotIsTrustedForTheRoutedKeys) {
  db::Db d(0, /*per_slot=*/true);
  d.Add(db::NewString("{a}x", "1"));
  std::string_view routed_keys[] = {"{a}x"};
  db::RoutedKeys wrong;
  wrong.Set(base::KeySlot("{b}"), routed_keys);
#ifndef NODE_DEBUG_CHECKS
  {
    RoutedScope scope(&wrong);
    CHECK(d.Find("{a}x") == nullptr);
  }
  CHECK(d.Find("{a}x") != nullptr);
#else
  fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    base::SetLogLevel(base::kLogNothing);
    db::GetEnv().routed = &wrong;
    d.Find("{a}x");
    _exit(0);
  }
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
#endif
}
