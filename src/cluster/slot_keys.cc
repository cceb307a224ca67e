#include "cluster/slot_keys.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/time.h"
#include "cluster/value_pieces.h"
#include "db/db.h"
#include "ds/hashtable.h"
#include "server/lazyfree.h"
#include "server/server.h"
#include "server/write_out.h"

namespace cluster {

bool SlotHasKeys(int slot) { return server::GetDb(0)->CountInSlot(slot) > 0; }

size_t DeleteKeysInSlot(int slot) {
  db::Db* d = server::GetDb(0);
  std::vector<std::string_view> views;
  d->KeysInSlot(slot, SIZE_MAX, &views);
  std::vector<std::string> keys(views.begin(), views.end());
  for (auto& k : keys) {
    d->Delete(k);
    server::KeyModified(0, k);
    // As Valkey 8's delKeysInSlot: to the AOF too, or the keys come back at the next start.
    server::WriteOut(0, {"DEL", k});
  }
  return keys.size();
}

namespace {

struct Dropping {
  std::unique_ptr<db::SlotTables> t;
  bool send_dels;
};
std::deque<Dropping> dropping;
db::Obj* freeing = nullptr;  // a big value, freed a piece at a time
bool freeing_dels = false;
PieceCursor freeing_cur;

// The key's removal leaves the node unless db 0 holds that key again.
bool Shadowed(std::string_view key) { return server::GetDb(0)->Find(key) != nullptr; }

}  // namespace

void DropSlotsLater(const std::vector<int>& slots, bool send_dels) {
  server::SlotsModified(0, slots);
  std::vector<std::unique_ptr<db::SlotTables>> whole;
  size_t keys = 0;
  for (int slot : slots) {
    std::unique_ptr<db::SlotTables> t = server::GetDb(0)->TakeSlot(slot);
    if (!t || t->keys.Size() == 0) continue;
    if (send_dels) {
      dropping.push_back({std::move(t), true});
    } else {
      keys += t->keys.Size();
      whole.push_back(std::move(t));
    }
  }
  server::FreeTablesLazily(std::move(whole), keys);
}

void DropSlotsNow(const std::vector<int>& slots) {
  server::SlotsModified(0, slots);
  for (int slot : slots) server::GetDb(0)->TakeSlot(slot).reset();
}

bool FlushSlotByCommand(int known_replicas, int attached_capable, bool attached_incapable) {
  return !attached_incapable && attached_capable >= known_replicas;
}

// A big value's elements freed per step: the deadline is looked at between steps, and a step
// of 1,024 took up to 5.6 ms where each free misses the cache and pages go back to the system.
constexpr size_t kFreeStepElements = 256;

bool DropSomeKeys(int64_t deadline_us) {
  static std::vector<std::string> argv;
  while (base::MonotonicUs() < deadline_us) {
    if (freeing) {
      bool send = freeing_dels && !Shadowed(freeing->key());
      bool removed;
      {
        ds::NoShrinkScope no_shrink;  // it is all going
        removed = RemovePiece(freeing, &freeing_cur, kFreeStepElements, &argv);
      }
      if (removed) {
        if (send) server::WriteOut(0, std::vector<std::string_view>(argv.begin(), argv.end()));
        continue;
      }
      // A string or stream goes whole; an emptied container is gone there already (the DEL
      // changes nothing).
      if (send) server::WriteOut(0, {"DEL", freeing->key()});
      db::FreeObj(freeing);
      freeing = nullptr;
      continue;
    }
    if (dropping.empty()) return false;
    db::SlotTables* t = dropping.front().t.get();
    bool send_dels = dropping.front().send_dels;
    db::Obj* o = nullptr;
    t->keys.ForEachWhile([&](db::Obj* n) {
      o = n;
      return false;
    });
    if (!o) {
      dropping.pop_front();
      continue;
    }
    std::string key(o->key());
    t->keys.Unlink(key);
    if (o->has_expire()) t->expires.Remove(o);
    if (Shadowed(key)) {
      db::FreeObj(o);
      continue;
    }
    server::KeyModified(0, key);
    if (SentInPieces(o)) {  // big: freed in pieces too, sent or not
      freeing = o;
      freeing_dels = send_dels;
      freeing_cur = PieceCursor{};
      continue;
    }
    if (send_dels) server::WriteOut(0, {"DEL", key});
    db::FreeObj(o);
  }
  return !dropping.empty() || freeing;
}

}  // namespace cluster
