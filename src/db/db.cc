// Database operations over per-slot tables and the expires table.
#include "db/db.h"

#include <cstdlib>

#include "base/crc16.h"
#include "base/log.h"
#include "base/time.h"

namespace db {

Env& GetEnv() {
  static Env env;
  return env;
}

Db::Db(int id, bool per_slot) : id_(id), tables_(per_slot ? kSlots : 1) {
  if (per_slot) fenwick_.assign(kSlots + 1, 0);
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

KeyTable* Db::TableAt(int slot, bool create) {
  auto& t = tables_[slot];
  if (!t && create) t = std::make_unique<KeyTable>();
  return t.get();
}

void Db::SlotCountAdd(int slot, int64_t delta) {
  if (!per_slot()) return;
  for (int i = slot + 1; i <= kSlots; i += i & -i) fenwick_[i] += delta;
}

int Db::NextNonEmptySlot(int from) const {
  // Linear over the (sparse) table pointers is fast enough: 16384 checks at worst.
  for (int s = from; s < static_cast<int>(tables_.size()); s++)
    if (tables_[s] && tables_[s]->Size()) return s;
  return -1;
}

Obj* Db::Find(std::string_view key) {
  KeyTable* t = TableFor(key, false);
  return t ? t->Find(key) : nullptr;
}

bool Db::IsExpired(const Obj* o) const {
  int64_t when = o->expire();
  return when >= 0 && when <= GetEnv().now_ms;
}

Obj* Db::Lookup(std::string_view key) {
  Obj* o = Find(key);
  if (!o || !IsExpired(o)) return o;
  if (GetEnv().replica && (GetEnv().from_primary || !GetEnv().local_write))
    return GetEnv().from_primary ? o : nullptr;
  if (GetEnv().keep_expired) return nullptr;
  std::string k(key);
  Delete(k);
  if (GetEnv().on_expired) GetEnv().on_expired(id_, k);
  return nullptr;
}

void Db::Add(Obj* o) {
  std::string_view key = o->key();
  int slot = SlotOf(key);
  TableAt(slot, true)->Insert(o);
  size_++;
  SlotCountAdd(slot, 1);
  if (o->has_expire()) AddExpireEntry(o);
  if (GetEnv().on_new) GetEnv().on_new(id_, key);
}

Obj* Db::Replace(Obj* old, Obj* nw, bool keep_old) {
  if (old != nw) {
    TableFor(old->key(), false)->Replace(old, nw);
    if (old->has_expire() && nw->has_expire()) {
      UpdateExpireEntry(old, nw);
    } else {
      if (old->has_expire()) RemoveExpireEntry(old);
      if (nw->has_expire()) AddExpireEntry(nw);
    }
    if (!keep_old) FreeObj(old);
  }
  return nw;
}

Obj* Db::SetExpire(Obj* o, int64_t when) {
  bool had = o->has_expire();
  if (had && when >= 0) {
    o->set_expire_in_place(when);
    return o;
  }
  if (!had && when < 0) return o;
  if (had) RemoveExpireEntry(o);
  KeyTable* t = TableFor(o->key(), false);
  std::string key(o->key());
  Obj* placeholder = t->Unlink(key);  // == o
  Obj* nw = WithExpire(placeholder, when);
  t->Insert(nw);
  if (nw->has_expire()) AddExpireEntry(nw);
  return nw;
}

Obj* Db::Unlink(std::string_view key) {
  int slot = SlotOf(key);
  KeyTable* t = TableAt(slot, false);
  if (!t) return nullptr;
  Obj* o = t->Unlink(key);
  if (!o) return nullptr;
  size_--;
  SlotCountAdd(slot, -1);
  if (o->has_expire()) RemoveExpireEntry(o);
  if (per_slot() && t->Size() == 0) tables_[slot].reset();
  return o;
}

bool Db::Delete(std::string_view key) {
  Obj* o = Unlink(key);
  if (!o) return false;
  FreeObj(o);
  return true;
}

void Db::Clear() {
  expires_.Clear([](ExpNode* n) { delete n; });
  for (auto& t : tables_) {
    if (t) t->Clear([](Obj* o) { FreeObj(o); });
    t.reset();
  }
  if (per_slot()) fenwick_.assign(kSlots + 1, 0);
  size_ = 0;
  expire_cursor_ = 0;
  avg_ttl = 0;
}

void Db::Swap(Db& other) {
  std::swap(size_, other.size_);
  std::swap(tables_, other.tables_);
  std::swap(fenwick_, other.fenwick_);
  std::swap(expires_, other.expires_);
  std::swap(expire_cursor_, other.expire_cursor_);
  std::swap(avg_ttl, other.avg_ttl);
}

void Db::AddExpireEntry(Obj* o) {
  expires_.Insert(new ExpNode{nullptr, o});
  NoteLocalExpire(o);
}

void Db::NoteLocalExpire(const Obj* o) {
  const Env& env = GetEnv();
  if (env.local_write && env.on_local_expire) env.on_local_expire(id_, o->key());
}

void Db::RemoveExpireEntry(Obj* o) { delete expires_.Unlink(o->key()); }

void Db::UpdateExpireEntry(Obj* old, Obj* nw) {
  ExpNode* n = expires_.Find(old->key());
  if (n) n->obj = nw;
  NoteLocalExpire(nw);
}

Obj* Db::RandomKey() {
  if (size_ == 0) return nullptr;
  if (!per_slot()) return tables_[0]->Random();
  // Pick the n-th key over slots with the Fenwick tree, so big slots weigh more.
  int64_t target = static_cast<int64_t>(ds::RandomU64() % size_);
  int pos = 0;
  for (int step = kSlots; step > 0; step >>= 1) {
    if (pos + step <= kSlots && fenwick_[pos + step] <= target) {
      pos += step;
      target -= fenwick_[pos];
    }
  }
  return tables_[pos] ? tables_[pos]->Random() : nullptr;
}

Obj* Db::RandomVolatileKey() {
  ExpNode* n = expires_.Size() ? expires_.Random() : nullptr;
  return n ? n->obj : nullptr;
}

uint64_t Db::Scan(uint64_t cursor, const std::function<void(Obj*)>& fn) {
  if (!per_slot()) return tables_[0] ? tables_[0]->Scan(cursor, fn) : 0;
  int slot = static_cast<int>(cursor & (kSlots - 1));
  uint64_t inner = cursor >> 14;
  int s = NextNonEmptySlot(slot);
  if (s < 0) return 0;
  if (s != slot) inner = 0;
  inner = tables_[s]->Scan(inner, fn);
  if (inner == 0) {
    int next = NextNonEmptySlot(s + 1);
    return next < 0 ? 0 : static_cast<uint64_t>(next);
  }
  return (inner << 14) | static_cast<uint64_t>(s);
}

size_t Db::CountInSlot(int slot) const {
  if (!per_slot()) return 0;
  return tables_[slot] ? tables_[slot]->Size() : 0;
}

void Db::KeysInSlot(int slot, size_t count, std::vector<std::string_view>* out) {
  if (!per_slot() || !tables_[slot]) return;
  if (count == 0) return;
  // Stops at `count`: GETKEYSINSLOT in a loop over a big slot (a migration) stays linear.
  tables_[slot]->ForEachWhile([&](Obj* o) {
    out->push_back(o->key());
    return out->size() < count;
  });
}

size_t Db::ActiveExpire(int64_t deadline_us, int64_t now_ms, size_t* total_sampled) {
  size_t expired_total = 0;
  std::vector<std::string> victims;
  int64_t ttl_sum = 0, ttl_samples = 0;
  while (expires_.Size() > 0) {
    victims.clear();
    size_t sampled = 0;
    // Walk buckets until about 20 keys were looked at (one Valkey "loop").
    do {
      expire_cursor_ = expires_.Scan(expire_cursor_, [&](ExpNode* n) {
        sampled++;
        int64_t when = n->obj->expire();
        if (when <= now_ms) {
          victims.emplace_back(n->obj->key());
        } else {
          ttl_sum += when - now_ms;
          ttl_samples++;
        }
      });
    } while (sampled < 20 && expire_cursor_ != 0);
    for (auto& k : victims) {
      Delete(k);
      if (GetEnv().on_expired) GetEnv().on_expired(id_, k);
    }
    expired_total += victims.size();
    *total_sampled += sampled;
    // Stop when the sample was mostly alive (<10% expired), or out of time, or wrapped.
    if (victims.size() * 10 < sampled || expire_cursor_ == 0) break;
    if (base::MonotonicUs() >= deadline_us) break;
  }
  if (ttl_samples) {
    uint64_t avg = ttl_sum / ttl_samples;
    avg_ttl = avg_ttl ? (avg_ttl / 50) * 49 + (avg / 50) : avg;
  }
  return expired_total;
}

void Db::RehashSome(int steps) {
  for (auto& t : tables_)
    if (t && t->Rehashing()) t->RehashSteps(steps);
  if (expires_.Rehashing()) expires_.RehashSteps(steps);
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
  if (expires) {
    add(expires_);
  } else {
    for (auto& table : tables_)
      if (table) add(*table);
  }
  return any;
}

}  // namespace db
