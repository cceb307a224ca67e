// Big values in pieces (see value_pieces.h).
#include "cluster/value_pieces.h"

#include <algorithm>

#include "base/util.h"
#include "db/hash.h"
#include "db/list.h"
#include "db/set.h"
#include "db/zset.h"

namespace cluster {

bool SentInPieces(const db::Obj* o) {
  switch (o->type()) {
    case db::kString:
      return o->str_len() > kPiecesStringBytes;
    case db::kList:
      return db::ListLen(o) > kPiecesElements;
    case db::kSet:
      return db::SetLen(o) > kPiecesElements;
    case db::kZSet:
      return db::ZLen(o) > kPiecesElements;
    case db::kHash:
      return db::HashLen(o) > kPiecesElements;
    default:
      return false;
  }
}

size_t TableElements(const db::Obj* o) {
  switch (o->type()) {
    case db::kSet:
      return db::SetLen(o);
    case db::kZSet:
      return db::ZLen(o);
    case db::kHash:
      return db::HashLen(o);
    default:
      return 0;
  }
}

void ReserveTable(db::Obj* o, size_t n) {
  switch (o->type()) {
    case db::kSet:
      return db::SetReserveMembers(o, n);
    case db::kZSet:
      return db::ZReserveMembers(o, n);
    case db::kHash:
      return db::HashReserveFields(o, n);
    default:
      return;
  }
}

bool NextPiece(db::Obj* o, PieceCursor* cur, size_t max_elements, size_t max_bytes,
               std::vector<std::string>* argv) {
  argv->clear();
  if (cur->done) return false;
  std::string key(o->key());
  size_t elements = 0, bytes = 0;
  auto full = [&] { return elements >= max_elements || bytes >= max_bytes; };
  switch (o->type()) {
    case db::kString: {
      char buf[24];
      std::string_view s = o->str(buf);
      if (cur->pos >= s.size() && cur->begun) break;
      size_t n = std::min(max_bytes, s.size() - std::min<size_t>(cur->pos, s.size()));
      *argv = {cur->begun ? "APPEND" : "SET", key, std::string(s.substr(cur->pos, n))};
      cur->pos += n;
      break;
    }
    case db::kList: {
      size_t len = db::ListLen(o);
      if (cur->pos >= len) break;
      *argv = {"RPUSH", key};
      db::ListWalk(o, cur->pos, false, [&](size_t, std::string_view e) {
        argv->emplace_back(e);
        elements++;
        bytes += e.size();
        return !full();
      });
      cur->pos += elements;
      break;
    }
    case db::kHash:
      *argv = {"HSET", key};
      do {
        cur->pos = db::HashScan(o, cur->pos, [&](std::string_view f, std::string_view v) {
          argv->emplace_back(f);
          argv->emplace_back(v);
          elements++;
          bytes += f.size() + v.size();
        });
      } while (cur->pos != 0 && !full());
      cur->done = cur->pos == 0;
      break;
    case db::kSet:
      *argv = {"SADD", key};
      do {
        cur->pos = db::SetScan(o, cur->pos, [&](std::string_view m) {
          argv->emplace_back(m);
          elements++;
          bytes += m.size();
        });
      } while (cur->pos != 0 && !full());
      cur->done = cur->pos == 0;
      break;
    case db::kZSet: {
      size_t rank = cur->begun ? db::ZRankAfter(o, cur->score, cur->member) : 0;
      *argv = {"ZADD", key};
      db::ZWalk(o, rank, false, [&](std::string_view m, double score) {
        argv->push_back(base::FormatDouble(score));
        argv->emplace_back(m);
        cur->score = score;
        cur->member.assign(m);
        elements++;
        bytes += m.size() + 8;
        return !full();
      });
      break;
    }
    default:
      break;
  }
  cur->begun = true;
  // A scan step may find no element (an empty bucket run to the end): no command then.
  if (argv->size() <= 2 && o->type() != db::kString) argv->clear();
  if (argv->empty()) {
    cur->done = true;
    return false;
  }
  return true;
}

bool RemovePiece(db::Obj* o, PieceCursor* cur, size_t max_elements,
                  std::vector<std::string>* argv) {
  argv->clear();
  std::string key(o->key());
  switch (o->type()) {
    case db::kZSet: {
      size_t n = std::min(max_elements, db::ZLen(o));
      if (!n) return false;
      db::ZDeleteRanks(o, 0, n);
      *argv = {"ZREMRANGEBYRANK", key, "0", std::to_string(n - 1)};
      return true;
    }
    case db::kList: {
      size_t n = std::min(max_elements, db::ListLen(o));
      if (!n) return false;
      db::ListDeleteRange(o, 0, n);
      *argv = {"LTRIM", key, std::to_string(n), "-1"};
      return true;
    }
    case db::kHash:
    case db::kSet: {
      bool hash = o->type() == db::kHash;
      // Collected first: the scan's callback must not change the table.
      std::vector<std::string> taken;
      do {
        if (hash)
          cur->pos = db::HashScan(o, cur->pos, [&](std::string_view f, std::string_view) {
            taken.emplace_back(f);
          });
        else
          cur->pos = db::SetScan(o, cur->pos, [&](std::string_view m) { taken.emplace_back(m); });
      } while (cur->pos != 0 && taken.size() < max_elements);
      if (taken.empty()) return false;
      *argv = {hash ? "HDEL" : "SREM", key};
      for (std::string& e : taken) {
        if (hash)
          db::HashDelete(o, e);
        else
          db::SetRemove(o, e);
        argv->push_back(std::move(e));
      }
      return true;
    }
    default:
      return false;
  }
}

bool RightOnPart(const std::vector<std::string_view>& argv, db::Type t) {
  if (argv.empty()) return false;
  std::string name = base::ToLower(argv[0]);
  if (name == "zadd")  // its options come before the first score
    for (size_t i = 2; i < argv.size(); i++) {
      std::string opt = base::ToLower(argv[i]);
      if (opt == "xx" || opt == "incr") return false;
      if (opt != "nx" && opt != "gt" && opt != "lt" && opt != "ch") break;
    }
  // The whole key's fate, or its expire: right on any part.
  for (const char* n : {"del", "unlink", "pexpireat", "pexpire", "expireat", "expire", "persist"})
    if (name == n) return true;
  const std::vector<const char*>* by_name = nullptr;
  static const std::vector<const char*> hash = {"hset",    "hsetnx",       "hmset",
                                                "hdel",    "hincrby",      "hincrbyfloat"};
  static const std::vector<const char*> set = {"sadd", "srem"};
  static const std::vector<const char*> zset = {"zadd", "zrem", "zremrangebyscore",
                                                "zremrangebylex"};
  switch (t) {
    case db::kHash:
      by_name = &hash;
      break;
    case db::kSet:
      by_name = &set;
      break;
    case db::kZSet:
      by_name = &zset;
      break;
    default:
      return false;
  }
  for (const char* n : *by_name)
    if (name == n) return true;
  return false;
}

}  // namespace cluster
