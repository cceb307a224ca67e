// Database operations over per-slot tables of keys and of their expires.
#include "db/db.h"

#include <cstdlib>

#include "base/crc16.h"
#include "base/log.h"
#include "base/time.h"

namespace db {

SlotTables::~SlotTables() {
  expires.Clear();
  keys.Clear([](Obj* o) { FreeObj(o); });
}

Db::Db(int id, bool per_slot) : id_(id), slots_(per_slot ? kSlots : 1) {
  if (per_slot) fenwick_.assign(kSlots + 1, 0), volatile_fenwick_.assign(kSlots + 1, 0);
}

Db::~Db() { Clear(); }

void RoutedKeys::Set(int slot, std::span<const std::string_view> keys) {
  Clear();
  bytes_.clear();
  if (slot < 0) return;
  slot_ = slot;
  for (std::string_view k : keys) {
    if (n_ == kMax || bytes_.size() + k.size() > kMaxBytes) break;
    bytes_.append(k);
    end_[n_++] = static_cast<uint32_t>(bytes_.size());
  }
}

int Db::SlotOf(std::string_view key) const {
  if (!per_slot()) return 0;
  const RoutedKeys* routed = GetEnv().routed;
  if (routed && routed->Holds(key)) {
#ifdef NODE_DEBUG_CHECKS
    // Routing hashed these very bytes: a different slot means it handed over a wrong one.
    if (routed->slot() != base::KeySlot(key)) {
      LOG_WARNING("Routed slot %d reused for key '%.*s' of slot %d", routed->slot(),
                  static_cast<int>(key.size()), key.data(), base::KeySlot(key));
      abort();
    }
#endif
    return routed->slot();
  }
  return base::KeySlot(key);
}

SlotTables* Db::TablesAt(int slot, bool create) {
  auto& t = slots_[slot];
  if (!t && create) t = std::make_unique<SlotTables>();
  return t.get();
}

void Db::FenwickAdd(std::vector<int64_t>* f, int slot, int64_t delta) {
  if (f->empty()) return;
  for (int i = slot + 1; i <= kSlots; i += i & -i) (*f)[i] += delta;
}

int Db::FenwickFind(const std::vector<int64_t>& f, int64_t nth) {
  int pos = 0;
  for (int step = kSlots; step > 0; step >>= 1) {
    if (pos + step <= kSlots && f[pos + step] <= nth) {
      pos += step;
      nth -= f[pos];
    }
  }
  return pos;
}

int Db::NextNonEmptySlot(int from) const {
  // Linear over the (sparse) table pointers is fast enough: 16384 checks at worst.
  for (int s = from; s < static_cast<int>(slots_.size()); s++)
    if (slots_[s] && slots_[s]->keys.Size()) return s;
  return -1;
}

int Db::NextVolatileSlot(int from) const {
  for (int s = from; s < static_cast<int>(slots_.size()); s++)
    if (slots_[s] && slots_[s]->expires.Size()) return s;
  return -1;
}

Obj* Db::Find(std::string_view key) {
  SlotTables* t = TablesAt(SlotOf(key), false);
  return t ? t->keys.Find(key) : nullptr;
}

bool Db::IsExpired(const Obj* o) const {
  int64_t when = o->expire();
  return when >= 0 && when <= GetEnv().now_ms;
}

Obj* Db::Lookup(std::string_view key) {
  Obj* o = Find(key);
  if (!o || !IsExpired(o)) return o;
  if (GetEnv().from_primary) return o;
  if (GetEnv().replica && !GetEnv().local_write) return nullptr;
  if (GetEnv().keep_expired) return nullptr;
  std::string k(key);
  DeleteExpired(k);
  if (GetEnv().on_expired) GetEnv().on_expired(id_, k);
  return nullptr;
}

void Db::Add(Obj* o) {
  std::string_view key = o->key();
  int slot = SlotOf(key);
  SlotTables* t = TablesAt(slot, true);
  t->keys.Insert(o);
  size_++;
  FenwickAdd(&fenwick_, slot, 1);
  if (o->has_expire()) AddExpireEntry(t, slot, o);
  if (GetEnv().on_new) GetEnv().on_new(id_, key);
}

Obj* Db::Replace(Obj* old, Obj* nw, bool keep_old) {
  if (old != nw) {
    nw->set_lru(old->lru());
    int slot = SlotOf(old->key());
    SlotTables* t = TablesAt(slot, false);
    t->keys.Replace(old, nw);
    if (old->has_expire() && nw->has_expire()) {
      UpdateExpireEntry(t, old, nw);
    } else {
      if (old->has_expire()) RemoveExpireEntry(t, slot, old);
      if (nw->has_expire()) AddExpireEntry(t, slot, nw);
    }
    if (!keep_old) GetEnv().free_server_del(old);
  }
  return nw;
}

Obj* Db::SetExpire(Obj* o, int64_t when) {
  bool had = o->has_expire();
  if (when >= 0 && o->HoldsExpire(when)) {
    o->set_expire_in_place(when);
    return o;
  }
  if (!had && when < 0) return o;
  int slot = SlotOf(o->key());
  SlotTables* t = TablesAt(slot, false);
  if (had) RemoveExpireEntry(t, slot, o);
  std::string key(o->key());
  Obj* placeholder = t->keys.Unlink(key);  // == o
  Obj* nw = WithExpire(placeholder, when);
  t->keys.Insert(nw);
  if (nw->has_expire()) AddExpireEntry(t, slot, nw);
  return nw;
}

Obj* Db::Unlink(std::string_view key) {
  int slot = SlotOf(key);
  SlotTables* t = TablesAt(slot, false);
  if (!t) return nullptr;
  Obj* o = t->keys.Unlink(key);
  if (!o) return nullptr;
  size_--;
  FenwickAdd(&fenwick_, slot, -1);
  if (o->has_expire()) RemoveExpireEntry(t, slot, o);
  if (per_slot() && t->keys.Size() == 0) slots_[slot].reset();
  return o;
}

bool Db::Delete(std::string_view key) {
  Obj* o = Unlink(key);
  if (!o) return false;
  FreeObj(o);
  return true;
}

bool Db::DeleteFreeingBy(std::string_view key, void (*free_fn)(Obj*)) {
  Obj* o = Unlink(key);
  if (!o) return false;
  free_fn(o);
  return true;
}

void Db::Clear() { TakeAll(); }

std::vector<std::unique_ptr<SlotTables>> Db::TakeAll() {
  std::vector<std::unique_ptr<SlotTables>> out;
  for (auto& t : slots_)
    if (t) out.push_back(std::move(t));
  if (per_slot()) fenwick_.assign(kSlots + 1, 0), volatile_fenwick_.assign(kSlots + 1, 0);
  size_ = volatile_ = 0;
  expire_cursor_ = 0;
  avg_ttl = 0;
  return out;
}

void Db::Swap(Db& other) {
  std::swap(size_, other.size_);
  std::swap(volatile_, other.volatile_);
  std::swap(slots_, other.slots_);
  std::swap(fenwick_, other.fenwick_);
  std::swap(volatile_fenwick_, other.volatile_fenwick_);
  std::swap(expire_cursor_, other.expire_cursor_);
  std::swap(avg_ttl, other.avg_ttl);
}

void Db::AddExpireEntry(SlotTables* t, int slot, Obj* o) {
  t->expires.Insert(o);
  volatile_++;
  FenwickAdd(&volatile_fenwick_, slot, 1);
  NoteLocalExpire(o);
}

void Db::NoteLocalExpire(const Obj* o) {
  const Env& env = GetEnv();
  if (env.local_write && env.on_local_expire) env.on_local_expire(id_, o->key());
}

void Db::RemoveExpireEntry(SlotTables* t, int slot, Obj* o) {
  bool removed = t->expires.Remove(o);
#ifdef NODE_DEBUG_CHECKS
  if (!removed) {  // an object moved without its entry: the set would keep a dangling pointer
    LOG_WARNING("Key '%.*s' with an expire missing from the expire set",
                static_cast<int>(o->key().size()), o->key().data());
    abort();
  }
#endif
  (void)removed;
  volatile_--;
  FenwickAdd(&volatile_fenwick_, slot, -1);
}

void Db::UpdateExpireEntry(SlotTables* t, Obj* old, Obj* nw) {
  if (t->expires.Remove(old)) t->expires.Insert(nw);
  NoteLocalExpire(nw);
}

Obj* Db::RandomKey() {
  if (size_ == 0) return nullptr;
  if (!per_slot()) return slots_[0]->keys.Random();
  // Pick the n-th key over slots with the Fenwick tree, so big slots weigh more.
  int pos = FenwickFind(fenwick_, static_cast<int64_t>(ds::RandomU64() % size_));
  return slots_[pos] ? slots_[pos]->keys.Random() : nullptr;
}

Obj* Db::RandomVolatileKey() {
  if (volatile_ == 0) return nullptr;
  int pos = per_slot()
                ? FenwickFind(volatile_fenwick_, static_cast<int64_t>(ds::RandomU64() % volatile_))
                : 0;
  return slots_[pos] ? slots_[pos]->expires.Random() : nullptr;
}

// Scan and ScanExpires: one table per slot walked in slot order with a reverse-binary cursor
// each; the cursor is (table cursor << 14) | the slot in progress.
namespace {
template <typename Next, typename Table, typename Fn>
uint64_t ScanPerSlot(uint64_t cursor, Next&& next, Table&& table_of, Fn&& fn) {
  int slot = static_cast<int>(cursor & (kSlots - 1));
  uint64_t inner = cursor >> 14;
  int s = next(slot);
  if (s < 0) return 0;
  if (s != slot) inner = 0;
  inner = table_of(s).Scan(inner, fn);
  if (inner == 0) {
    int following = next(s + 1);
    return following < 0 ? 0 : static_cast<uint64_t>(following);
  }
  return (inner << 14) | static_cast<uint64_t>(s);
}
}  // namespace

uint64_t Db::Scan(uint64_t cursor, const std::function<void(Obj*)>& fn) {
  if (!per_slot()) return slots_[0] ? slots_[0]->keys.Scan(cursor, fn) : 0;
  return ScanPerSlot(
      cursor, [this](int from) { return NextNonEmptySlot(from); },
      [this](int s) -> KeyTable& { return slots_[s]->keys; }, fn);
}

size_t Db::CountInSlot(int slot) const {
  if (!per_slot()) return 0;
  return slots_[slot] ? slots_[slot]->keys.Size() : 0;
}

uint64_t Db::ScanSlot(int slot, uint64_t cursor, const std::function<void(Obj*)>& fn) {
  SlotTables* t = slots_[per_slot() ? slot : 0].get();
  return t ? t->keys.Scan(cursor, fn) : 0;
}

std::unique_ptr<SlotTables> Db::TakeSlot(int slot) {
  std::unique_ptr<SlotTables> t = std::move(slots_[slot]);
  if (!t) return t;
  size_ -= t->keys.Size();
  volatile_ -= t->expires.Size();
  FenwickAdd(&fenwick_, slot, -static_cast<int64_t>(t->keys.Size()));
  FenwickAdd(&volatile_fenwick_, slot, -static_cast<int64_t>(t->expires.Size()));
  return t;
}

void Db::PutSlot(int slot, std::unique_ptr<SlotTables> t) {
  if (!t || t->keys.Size() == 0) return;
  if (slots_[slot] && slots_[slot]->keys.Size()) abort();  // the caller moves into empty slots
  size_ += t->keys.Size();
  volatile_ += t->expires.Size();
  FenwickAdd(&fenwick_, slot, static_cast<int64_t>(t->keys.Size()));
  FenwickAdd(&volatile_fenwick_, slot, static_cast<int64_t>(t->expires.Size()));
  slots_[slot] = std::move(t);
}

void Db::KeysInSlot(int slot, size_t count, std::vector<std::string_view>* out) {
  if (!per_slot() || !slots_[slot]) return;
  if (count == 0) return;
  // Stops at `count`: GETKEYSINSLOT in a loop over a big slot (a migration) stays linear.
  slots_[slot]->keys.ForEachWhile([&](Obj* o) {
    out->push_back(o->key());
    return out->size() < count;
  });
}

size_t Db::ActiveExpire(int64_t deadline_us, int64_t now_ms, size_t* total_sampled) {
  size_t expired_total = 0;
  std::vector<std::string> victims;
  int64_t ttl_sum = 0, ttl_samples = 0;
  while (volatile_ > 0) {
    victims.clear();
    size_t sampled = 0;
    // Walk buckets until about 20 keys were looked at (one Valkey "loop"), slot after slot.
    do {
      expire_cursor_ = ScanExpires(expire_cursor_, [&](Obj* o) {
        sampled++;
        int64_t when = o->expire();
        if (when <= now_ms) {
          victims.emplace_back(o->key());
        } else {
          ttl_sum += when - now_ms;
          ttl_samples++;
        }
      });
    } while (sampled < 20 && expire_cursor_ != 0);
    size_t expired = 0;
    for (auto& k : victims) {
      if (!DeleteExpired(k)) continue;  // seen twice by the walk (a resize moved it)
      expired++;
      if (GetEnv().on_expired) GetEnv().on_expired(id_, k);
    }
    expired_total += expired;
    *total_sampled += sampled;
    // Stop when the sample was mostly alive (<10% expired), or out of time, or wrapped.
    if (expired * 10 < sampled || expire_cursor_ == 0) break;
    if (base::MonotonicUs() >= deadline_us) break;
  }
  if (ttl_samples) {
    uint64_t avg = ttl_sum / ttl_samples;
    avg_ttl = avg_ttl ? (avg_ttl / 50) * 49 + (avg / 50) : avg;
  }
  return expired_total;
}

bool Db::RehashSome(int64_t deadline_us) {
  for (auto& t : slots_) {
    if (!t) continue;
    while (t->keys.Rehashing() || t->expires.Rehashing()) {
      if (base::MonotonicUs() >= deadline_us) return false;
      t->keys.RehashSteps(10);  // about 100 keys
      t->expires.RehashSteps(10);
    }
  }
  return true;
}

uint64_t Db::ScanExpires(uint64_t cursor, const std::function<void(Obj*)>& fn) {
  if (!per_slot()) return slots_[0] ? slots_[0]->expires.Scan(cursor, fn) : 0;
  return ScanPerSlot(
      cursor, [this](int from) { return NextVolatileSlot(from); },
      [this](int s) -> ExpireSet& { return slots_[s]->expires; }, fn);
}

Db::Overhead Db::TablesOverhead() const {
  Overhead o;
  for (auto& t : slots_) {
    if (!t) continue;
    o.tables++;
    uint64_t kb = t->keys.BucketBytes(), eb = t->expires.Buckets() * sizeof(Obj*);
    o.main_bytes += sizeof(SlotTables) + kb + t->keys.Size() * sizeof(Obj);
    o.expires_bytes += eb;
    o.bucket_bytes += kb + eb;
    size_t rk = t->keys.RehashingFromBytes(), re = t->expires.RehashingFromBuckets() * sizeof(Obj*);
    o.rehashing_bytes += rk + re;
    o.rehashing_tables += (rk > 0) + (re > 0);
  }
  return o;
}

bool Db::TableStats(bool expires, int t, bool full, ds::HtStats* out) const {
  bool any = false;
  auto add = [&](const auto& table) {
    ds::HtStats one;
    if (table.Size() == 0 || !table.Stats(t, full, &one)) return;
    if (any)
      out->Combine(one);
    else
      *out = one;
    any = true;
  };
  for (auto& t : slots_) {
    if (!t) continue;
    if (expires)
      add(t->expires);
    else
      add(t->keys);
  }
  return any;
}

}  // namespace db
