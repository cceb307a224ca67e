// Keyspace: per-slot tables in cluster mode, slot counts, and SCAN across slots.
#include "db/db.h"

#include <set>
#include <string>

#include "base/crc16.h"
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
