// Shared command helpers.
#include "commands/common.h"

#include "base/util.h"

namespace cmd {

db::Obj* LookupRead(Client* c, std::string_view key) {
  db::Obj* o = c->db->Lookup(key);
  if (o) {
    server::g.stats.keyspace_hits++;
    db::TouchAccess(o);
  } else {
    server::g.stats.keyspace_misses++;
  }
  return o;
}

db::Obj* LookupWrite(Client* c, std::string_view key) { return c->db->Lookup(key); }

bool CheckType(Client* c, const db::Obj* o, db::Type t) {
  if (!o || o->type() == t) return true;
  c->R().Error(server::kErrWrongType);
  return false;
}

db::Obj* StoreKey(Client* c, db::Obj* old, db::Obj* nw) {
  if (old) return c->db->Replace(old, nw);
  c->db->Add(nw);
  return nw;
}

void Modified(Client* c, std::string_view key, int64_t dirty) {
  server::g.dirty += dirty;
  server::KeyModified(c->dbid, key);
}

bool ParseExpire(Client* c, std::string_view arg, int64_t unit_ms, bool absolute,
                 const char* cmdname, int64_t* when) {
  int64_t v;
  if (!base::ParseInt64(arg, &v)) {
    c->R().Error(server::kErrNotInt);
    return false;
  }
  auto invalid = [&] {
    c->R().Error(std::string("invalid expire time in '") + cmdname + "' command");
    return false;
  };
  if (v <= 0 || (unit_ms == 1000 && v > INT64_MAX / 1000)) return invalid();
  v *= unit_ms;
  if (!absolute) {
    int64_t now = db::GetEnv().now_ms;
    if (v > INT64_MAX - now) return invalid();
    v += now;
  }
  *when = v;
  return true;
}

}  // namespace cmd
