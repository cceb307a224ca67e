// Keyspace: per-slot tables in cluster mode, slot counts, SCAN across slots, and which keys
// take the running command's routed slot.
#include "db/db.h"

#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <set>
#include <string>
#include <vector>

#include "base/crc16.h"
#include "base/log.h"
#include "check.h"
#include "db/hash.h"
#include "db/set.h"

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

// An expire below 2^48 ms takes 6 bytes of the object, a later one 8: every value at the
// boundary comes back as set, in a new object and in place, and a narrow object given a wide
// expire is reallocated rather than cut. The benchmark's key (11 bytes, a 16-byte value, an
// expire) fits jemalloc's 48-byte class.
TEST_CASE(ObjExpireTakesSixBytesBelowTwoToThe48) {
  const int64_t edge = db::Obj::kNarrowExpireEnd;
  for (int64_t when : {int64_t{0}, int64_t{1}, int64_t{1764000000000}, edge - 1, edge,
                       edge + 1, INT64_MAX}) {
    db::Obj* o = db::NewString("k", "v", when);
    CHECK_EQ(o->expire(), when);
    CHECK(o->key() == "k");
    char buf[24];
    CHECK(o->str(buf) == "v");
    db::FreeObj(o);
  }
  db::Obj* bench = db::NewString("key:0000001", "v000000000000001", 1764000000000);
  size_t bench_size = malloc_usable_size(bench);  // 48 with jemalloc; the request under ASan
  db::FreeObj(bench);
  CHECK(bench_size <= 48);
  db::Db d(0, false);
  d.Add(db::NewString("a", "value", 1000));
  db::Obj* narrow = d.Find("a");
  CHECK(d.SetExpire(narrow, edge - 1) == narrow);  // in place
  CHECK_EQ(d.Find("a")->expire(), edge - 1);
  db::Obj* wide = d.SetExpire(d.Find("a"), INT64_MAX);
  CHECK_EQ(d.Find("a")->expire(), INT64_MAX);
  CHECK(d.Find("a") == wide);
  CHECK(d.SetExpire(wide, 5) == wide);  // a wide expire holds any value
  CHECK_EQ(d.Find("a")->expire(), 5);
  char buf[24];
  CHECK(d.Find("a")->str(buf) == "value");
  CHECK_EQ(d.ExpiresSize(), 1u);
  CHECK_EQ(d.RandomVolatileKey(), d.Find("a"));
}

// A key of up to 15 bytes with an inline string of up to 31 has both lengths in one byte: the
// benchmark's key (11 bytes, a 16-byte value) takes 32 bytes, jemalloc's 32-byte class (it took
// 48 with a chain link and a length byte each). Every boundary of the packed form, with and
// without an expire, reads back; a re-keyed object keeps its value and access time.
TEST_CASE(ObjPacksShortKeyAndStringLengthsInOneByte) {
  db::Obj* bench = db::NewString("key:0000001", "v000000000000001");
  size_t bench_size = malloc_usable_size(bench);
  bool packed = bench->meta & db::Obj::kPacked;
  db::FreeObj(bench);
  CHECK_EQ(bench_size, 32u);
  CHECK(packed);
  for (size_t klen : {0, 1, 11, 15, 16, 17, 200})
    for (size_t vlen : {0, 1, 15, 16, 17, 31, 32, 44, 45, 100, 300}) {
      for (int64_t when : {int64_t{-1}, int64_t{1764000000000}, INT64_MAX}) {
        std::string key(klen, 'k'), val(vlen, 'v');
        if (vlen) val[vlen - 1] = 'x';  // a string of digits would take the int encoding
        if (klen) key[0] = 'K';
        db::Obj* o = db::NewString(key, val, when);
        CHECK_EQ(bool(o->meta & db::Obj::kPacked), klen <= 15 && vlen <= 31);
        CHECK(o->key() == key);
        char buf[24];
        CHECK(o->str(buf) == val);
        CHECK_EQ(o->str_len(), vlen);
        CHECK_EQ(o->expire(), when);
        CHECK_EQ(o->type(), db::kString);
        CHECK_EQ(o->enc(), vlen > db::kEmbstrMaxLen ? db::kEncRawInline : db::kEncEmbstr);
        o->set_lru(12345);
        // re-keyed to a key that packs and to one that does not, and given another expire
        for (const std::string& nk : {std::string("short"), std::string(40, 'n')}) {
          db::Obj* n = db::Rekey(o, nk, 77, /*steal=*/false);
          CHECK(n->key() == nk);
          CHECK(n->str(buf) == val);
          CHECK_EQ(n->expire(), 77);
          CHECK_EQ(n->lru(), 12345u);
          db::FreeObj(n);
        }
        o = db::WithExpire(o, -1);
        CHECK(o->str(buf) == val);
        CHECK(o->key() == key);
        CHECK_EQ(o->expire(), -1);
        db::FreeObj(o);
      }
    }
  // the kinds: every (type, encoding) pair the keyspace holds goes through the 4-bit kind
  for (uint32_t k = 0; k < 14; k++) {
    db::Type t = db::Obj::KindType(k);
    db::Enc e = db::Obj::KindEnc(k);
    CHECK_EQ(db::Obj::KindOf(t, e), k);
  }
  db::Obj* i = db::NewInt("counter", 42, 5);
  CHECK_EQ(i->enc(), db::kEncInt);
  CHECK_EQ(i->int_value(), 42);
  CHECK_EQ(i->expire(), 5);
  CHECK(i->key() == "counter");
  db::FreeObj(i);
}

// A value written in place only where NewString would make the very same layout; the object
// then reads as the new value with its key, expire and LRU field as they were.
TEST_CASE(ObjOverwriteStringOnlyWhereTheLayoutIsTheSame) {
  struct Case {
    const char* name;
    std::string key, old_val, new_val;
    int64_t expire;
    bool in_place;
  };
  std::string k40(40, 'k'), v100(100, 'v'), w100(100, 'w'), v31(31, 'v'), w32(32, 'w');
  const Case cases[] = {
      {"embstr, same length", "k", "abc", "xyz", -1, true},
      {"embstr, packed layout, expire kept", "k", "abc", "xyz", 1764000000000, true},
      {"embstr, unpacked key", k40, "abc", "xyz", INT64_MAX, true},
      {"embstr, shorter", "k", "abcd", "xyz", -1, false},
      {"embstr, longer", "k", "abc", "wxyz", -1, false},
      {"31 bytes packed, 32 not", "k", v31, w32, -1, false},
      {"raw inline, same length", "k", v100, w100, -1, true},
      {"embstr to int", "k", "abc", "123", -1, false},
      {"int to int", "k", "42", "-9000000000", 5, true},
      {"int to embstr", "k", "42", "4x", -1, false},
      {"not an int: leading zero", "k", "42", "07", -1, false},
  };
  auto run = [](const Case& t) {
    db::Obj* o = db::NewString(t.key, t.old_val, t.expire);
    db::Obj* fresh = db::NewString(t.key, t.new_val, t.expire);
    o->set_lru(4242);
    size_t size = malloc_usable_size(o);
    uint32_t meta = o->meta;
    bool done = db::OverwriteString(o, t.new_val);
    CHECK_EQ(done, t.in_place);
    char buf[24];
    CHECK(o->str(buf) == (done ? t.new_val : t.old_val));
    CHECK(o->key() == t.key);
    CHECK_EQ(o->expire(), t.expire);
    CHECK_EQ(o->lru(), 4242u);
    CHECK_EQ(o->meta, meta);
    if (done) {  // what a new object would be, in the same allocation
      CHECK_EQ(o->enc(), fresh->enc());
      CHECK_EQ(malloc_usable_size(fresh), size);
    }
    db::FreeObj(o);
    db::FreeObj(fresh);
  };
  for (const Case& t : cases) {
    int before = check::failures;
    run(t);
    if (check::failures != before) fprintf(stderr, "  in case: %s\n", t.name);
  }
  db::Obj* list = db::NewContainer("l", db::kList, db::kEncQuicklist, nullptr);
  CHECK(!db::OverwriteString(list, "v"));
  free(list);
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

TEST_CASE(DbActiveExpiryWalksEverySlotsExpires) {
  // Expires live per slot: the cycle moves from slot to slot and finds every expired key,
  // whatever slot it is in; live keys with an expire stay, counted.
  db::Db d(0, /*per_slot=*/true);
  db::GetEnv().now_ms = 1000;
  for (int i = 0; i < 3000; i++) {
    std::string k = "k:" + std::to_string(i);
    d.Add(db::NewString(k, "v"));
    d.SetExpire(d.Find(k), i % 3 == 0 ? 500 : 5000);  // a third already expired
  }
  CHECK_EQ(d.ExpiresSize(), 3000u);
  size_t expired = 0, sampled = 0;
  for (int pass = 0; pass < 200 && expired < 1000; pass++)
    expired += d.ActiveExpire(INT64_MAX, 1000, &sampled);
  CHECK_EQ(expired, 1000u);
  CHECK_EQ(d.Size(), 2000u);
  CHECK_EQ(d.ExpiresSize(), 2000u);
  for (int i = 0; i < 3000; i++)
    CHECK_EQ(d.Find("k:" + std::to_string(i)) != nullptr, i % 3 != 0);
  // A volatile key drawn at random is one with an expire.
  for (int i = 0; i < 100; i++) {
    db::Obj* o = d.RandomVolatileKey();
    CHECK(o != nullptr && o->expire() == 5000);
  }
}

TEST_CASE(DbSlotTablesMoveWholeBetweenDbs) {
  // A slot's keys and their expires leave one db and enter another in one step (slot
  // migration's staging and handover); the counts, lookups, expiry and random draws of both
  // dbs follow, and the slot's other keys never mix with another slot's.
  db::Db served(0, true), staging(0, true);
  db::GetEnv().now_ms = 1000;
  int slot = base::KeySlot("{moving}");
  for (int i = 0; i < 100; i++) {
    std::string k = "{moving}:" + std::to_string(i);
    staging.Add(db::NewString(k, "v"));
    if (i < 10) staging.SetExpire(staging.Find(k), i < 5 ? 500 : 9000);
  }
  served.Add(db::NewString("other", "v"));
  served.SetExpire(served.Find("other"), 9000);
  CHECK(staging.TakeSlot(base::KeySlot("other")) == nullptr);  // nothing there
  std::unique_ptr<db::SlotTables> t = staging.TakeSlot(slot);
  CHECK(t != nullptr);
  CHECK_EQ(t->keys.Size(), 100u);
  CHECK_EQ(t->expires.Size(), 10u);
  CHECK_EQ(staging.Size(), 0u);
  CHECK_EQ(staging.ExpiresSize(), 0u);
  CHECK(staging.Find("{moving}:1") == nullptr);
  CHECK(staging.RandomKey() == nullptr);
  served.PutSlot(slot, std::move(t));
  CHECK_EQ(served.Size(), 101u);
  CHECK_EQ(served.ExpiresSize(), 11u);
  CHECK_EQ(served.CountInSlot(slot), 100u);
  CHECK(served.Find("{moving}:99") != nullptr);
  CHECK(served.Lookup("{moving}:2") == nullptr);  // its time passed: deleted on access
  CHECK_EQ(served.Size(), 100u);
  size_t sampled = 0;
  CHECK_EQ(served.ActiveExpire(INT64_MAX, 1000, &sampled), 4u);  // the other 4 expired ones
  CHECK_EQ(served.ExpiresSize(), 6u);
  // Dropping a slot frees its keys in one step; the rest of the db is untouched.
  t = served.TakeSlot(slot);
  CHECK_EQ(t->keys.Size(), 95u);
  t.reset();
  CHECK_EQ(served.Size(), 1u);
  CHECK_EQ(served.ExpiresSize(), 1u);
  CHECK(served.Find("other") != nullptr);
  CHECK(served.RandomVolatileKey() == served.Find("other"));
}

// Hash and set table nodes keep their lengths as varints (db/varint.h): every length at the
// 1-, 2- and 3-byte boundaries comes back as stored, in the hashtable encodings.
TEST_CASE(TableNodesKeepEveryLength) {
  db::RegisterHashType();
  db::RegisterSetType();
  std::vector<size_t> lens = {0, 1, 7, 127, 128, 129, 16383, 16384, 16385, 200000};
  db::Obj* h = db::NewHash("h");
  db::Obj* s = db::NewSet("s", "x", 1000);
  auto bytes = [](size_t n, char c) {
    std::string v(n, c);
    for (size_t i = 0; i < n; i++) v[i] = static_cast<char>(c + i % 7);
    return v;
  };
  for (size_t f : lens)
    for (size_t v : lens) {
      std::string field = bytes(f, 'a') + "#" + std::to_string(v);
      CHECK(db::HashSet(h, field, bytes(v, 'k')));
    }
  for (size_t m : lens) CHECK(db::SetAdd(s, bytes(m, 'm')));
  for (int i = 0; i < 200; i++) db::SetAdd(s, "pad" + std::to_string(i));  // past listpack
  CHECK_EQ(std::string(db::EncodingName(h->enc())), std::string("hashtable"));
  CHECK_EQ(std::string(db::EncodingName(s->enc())), std::string("hashtable"));
  for (size_t f : lens)
    for (size_t v : lens) {
      std::string got;
      CHECK(db::HashGet(h, bytes(f, 'a') + "#" + std::to_string(v), &got));
      CHECK(got == bytes(v, 'k'));
    }
  for (size_t m : lens) CHECK(db::SetContains(s, bytes(m, 'm')));
  CHECK(!db::SetContains(s, bytes(128, 'n')));
  size_t seen = 0;
  db::HashForEach(h, [&](std::string_view f, std::string_view v) {
    size_t hash_at = f.rfind('#');
    if (hash_at != std::string_view::npos && std::to_string(v.size()) == f.substr(hash_at + 1))
      seen++;
  });
  CHECK_EQ(seen, lens.size() * lens.size());
  db::FreeObj(h);
  db::FreeObj(s);
}
