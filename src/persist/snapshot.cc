// Whole-snapshot writer (streaming, chunked, CRC64) and bounded reader.
#include "persist/snapshot.h"

#include <errno.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>

#include "base/crc64.h"
#include "base/time.h"
#include "base/util.h"
#include "persist/object_codec.h"

namespace persist {
namespace {

std::map<std::string, AuxHook>& AuxRegistry() {
  static std::map<std::string, AuxHook> m;
  return m;
}

void PutLe64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; i++) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t GetLe(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; i++) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

// Names of the value types for messages (as redis-check-rdb names them).
const char* TypeName(uint8_t t) {
  switch (t) {
    case 0:
      return "string";
    case 1:
      return "list-linked";
    case 2:
      return "set-hashtable";
    case 3:
      return "zset-v1";
    case 4:
      return "hash-hashtable";
    case 5:
      return "zset-v2";
    case 6:
      return "module-pre-release";
    case 7:
      return "module-value";
    case 9:
      return "hash-zipmap";
    case 10:
      return "list-ziplist";
    case 11:
      return "set-intset";
    case 12:
      return "zset-ziplist";
    case 13:
      return "hash-ziplist";
    case 14:
      return "quicklist";
    case 15:
      return "stream";
    case 16:
      return "hash-listpack";
    case 17:
      return "zset-listpack";
    case 18:
      return "quicklist-v2";
    case 19:
      return "stream-v2";
    case 20:
      return "set-listpack";
    case 21:
      return "stream-v3";
    default:
      return nullptr;
  }
}

bool Unsupported(uint8_t t) { return t == 6 || t == 7 || t == 9; }

std::string Printable(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 64)) {
    if (c >= 32 && c < 127 && c != '\'') {
      out.push_back(c);
    } else {
      char b[8];
      snprintf(b, sizeof(b), "\\x%02x", static_cast<unsigned char>(c));
      out += b;
    }
  }
  if (s.size() > 64) out += "...";
  return out;
}

}  // namespace

void RegisterAuxField(const std::string& name, AuxHook hook) {
  AuxRegistry()[name] = std::move(hook);
}
void UnregisterAuxField(const std::string& name) { AuxRegistry().erase(name); }

// ---------------------------------------------------------------- writer

SnapshotWriter::SnapshotWriter(std::string* out, const SaveOptions& opts) : out_(out), opts_(opts) {
  buf_.reserve(kChunk + 1024);
}

SnapshotWriter::SnapshotWriter(int fd, const SaveOptions& opts) : fd_(fd), opts_(opts) {
  buf_.reserve(kChunk + 1024);
}

void SnapshotWriter::Flush() {
  if (buf_.empty()) return;
  if (err_) {
    buf_.clear();
    return;
  }
  crc_ = base::Crc64(crc_, buf_.data(), buf_.size());
  if (out_) {
    out_->append(buf_);
  } else {
    const char* p = buf_.data();
    size_t left = buf_.size();
    while (left) {
      ssize_t w = write(fd_, p, left);
      if (w < 0) {
        if (errno == EINTR) continue;
        err_ = errno;
        break;
      }
      p += w;
      left -= static_cast<size_t>(w);
    }
    since_sync_ += buf_.size();
    if (!err_ && opts_.autosync_bytes && since_sync_ >= opts_.autosync_bytes) {
      since_sync_ = 0;
      if (fdatasync(fd_) != 0 && errno != EINVAL) err_ = errno;
    }
  }
  total_ += buf_.size();
  buf_.clear();
}

void SnapshotWriter::Aux(std::string_view name, std::string_view value) {
  buf_.push_back(static_cast<char>(kOpAux));
  WriteString(&buf_, name, false);
  WriteString(&buf_, value, opts_.compress);
  MaybeFlush();
}

void SnapshotWriter::Header(int64_t now_sec, uint64_t used_mem) {
  char magic[16];
  snprintf(magic, sizeof(magic), "REDIS%04d", kWriteVersion);
  buf_.append(magic, 9);
  Aux("redis-ver", "7.2.4");
  Aux("redis-bits", "64");
  Aux("ctime", std::to_string(now_sec));
  Aux("used-mem", std::to_string(used_mem));
  for (auto& [name, hook] : AuxRegistry()) {
    std::string v;
    if (hook.replication_only && !opts_.for_replication) continue;
    if (hook.write && hook.write(&v)) Aux(name, v);
  }
  Aux("aof-base", opts_.aof_base ? "1" : "0");
}

void SnapshotWriter::SelectDb(int id, uint64_t keys, uint64_t expires) {
  buf_.push_back(static_cast<char>(kOpSelectDb));
  WriteLen(&buf_, static_cast<uint64_t>(id));
  buf_.push_back(static_cast<char>(kOpResizeDb));
  WriteLen(&buf_, keys);
  WriteLen(&buf_, expires);
}

void SnapshotWriter::Key(std::string_view key, const Value& v, int64_t expire_ms, int64_t idle_sec,
                         int freq) {
  if (expire_ms >= 0) {
    buf_.push_back(static_cast<char>(kOpExpireTimeMs));
    PutLe64(&buf_, static_cast<uint64_t>(expire_ms));
  }
  if (idle_sec >= 0) {
    buf_.push_back(static_cast<char>(kOpIdle));
    WriteLen(&buf_, static_cast<uint64_t>(idle_sec));
  }
  if (freq >= 0) {
    buf_.push_back(static_cast<char>(kOpFreq));
    buf_.push_back(static_cast<char>(freq & 0xff));
  }
  // Layout: type byte, key, value. WriteValue emits type+value: slip the key in between.
  size_t at = buf_.size();
  WriteValue(&buf_, v, opts_.compress);
  std::string k;
  WriteString(&k, key, opts_.compress);
  buf_.insert(at + 1, k);
  keys_++;
  MaybeFlush();
}

void SnapshotWriter::Object(db::Obj* o) {
  int64_t idle = -1;
  int freq = -1;
  if (opts_.write_idle) {
    uint32_t now = db::LruClock(), lru = o->lru();
    idle = now >= lru ? now - lru : now + (db::kLruMax - lru);
  }
  if (opts_.write_freq) freq = db::LfuCounter(o);
  Key(o->key(), ToValue(o), o->expire(), idle, freq);
}

bool SnapshotWriter::Finish() {
  if (finished_) return err_ == 0;  // WriteSnapshot already finished: nothing more to write
  finished_ = true;
  buf_.push_back(static_cast<char>(kOpEof));
  Flush();
  std::string trailer;
  PutLe64(&trailer, opts_.checksum ? crc_ : 0);
  buf_ = trailer;
  uint64_t crc = crc_;
  Flush();
  crc_ = crc;  // the trailer is not part of the checksummed data
  return err_ == 0;
}

bool WriteSnapshot(SnapshotWriter& w, const std::vector<db::Db*>& dbs, int64_t now_sec,
                   uint64_t used_mem) {
  w.Header(now_sec, used_mem);
  for (db::Db* d : dbs) {
    if (!d || d->Size() == 0) continue;
    w.SelectDb(d->id(), d->Size(), d->ExpiresSize());
    d->ForEach([&](db::Obj* o) {
      if (!w.ok()) return;
      w.Object(o);
      if (w.options().key_save_delay_us > 0)
        usleep(static_cast<useconds_t>(w.options().key_save_delay_us));
    });
    if (!w.ok()) break;
  }
  return w.Finish();
}

// ---------------------------------------------------------------- reader

LoadResult ParseSnapshot(const uint8_t* p, size_t n, const LoadOptions& opts,
                         const KeyVisitor& visit) {
  LoadResult res;
  Reader r(p, n);
  auto fail = [&](const std::string& msg, bool short_read) {
    res.ok = false;
    res.short_read = short_read;
    res.error = msg;
    res.error_offset = static_cast<uint64_t>(r.pos() - p);
    return res;
  };
  auto eof = [&]() { return fail("Unexpected EOF reading RDB file", true); };

  char magic[9];
  if (!r.ReadBytes(magic, 9)) return eof();
  if (memcmp(magic, "REDIS", 5) != 0)
    return fail("Wrong signature trying to load DB from file", false);
  int version = 0;
  for (int i = 5; i < 9; i++) {
    if (magic[i] < '0' || magic[i] > '9')
      return fail("Wrong signature trying to load DB from file", false);
    version = version * 10 + (magic[i] - '0');
  }
  res.version = version;
  if (version < 1 || version > kMaxReadVersion) {
    return fail("Can't handle RDB format version " + std::to_string(version), false);
  }

  int dbid = 0;
  int64_t expire = -1, idle = -1;
  int freq = -1;
  for (;;) {
    uint8_t type;
    if (!r.ReadByte(&type)) return eof();
    switch (type) {
      case kOpExpireTimeMs: {
        uint8_t b[8];
        if (!r.ReadBytes(b, 8)) return eof();
        expire = static_cast<int64_t>(GetLe(b, 8));
        continue;
      }
      case kOpExpireTime: {
        uint8_t b[4];
        if (!r.ReadBytes(b, 4)) return eof();
        expire = static_cast<int64_t>(static_cast<int32_t>(GetLe(b, 4))) * 1000;
        continue;
      }
      case kOpFreq: {
        uint8_t b;
        if (!r.ReadByte(&b)) return eof();
        freq = b;
        continue;
      }
      case kOpIdle: {
        uint64_t v;
        if (!r.ReadLen(&v, nullptr)) return eof();
        idle = static_cast<int64_t>(v & INT64_MAX);
        continue;
      }
      case kOpSelectDb: {
        uint64_t id;
        if (!r.ReadLen(&id, nullptr)) return eof();
        if (id >= static_cast<uint64_t>(opts.num_dbs)) {
          return fail("Data file was created with a server configured to handle more than " +
                          std::to_string(opts.num_dbs) + " databases (SELECTDB " +
                          std::to_string(id) + ")",
                      false);
        }
        dbid = static_cast<int>(id);
        continue;
      }
      case kOpResizeDb: {
        uint64_t a, b;
        if (!r.ReadLen(&a, nullptr) || !r.ReadLen(&b, nullptr)) return eof();
        continue;
      }
      case kOpAux: {
        std::string k, v;
        if (!r.ReadString(&k) || !r.ReadString(&v)) {
          return r.Remaining() == 0 ? eof() : fail("Bad aux field", false);
        }
        if (k == "redis-ver") {
          res.producer = "Redis version " + v;
        } else if (k == "valkey-ver") {
          res.producer = "Valkey version " + v;
        } else if (k == "ctime") {
          base::ParseInt64(v, &res.ctime);
        } else if (k == "used-mem") {
          base::ParseInt64(v, &res.used_mem);
        } else {
          auto it = AuxRegistry().find(k);
          bool applies = it != AuxRegistry().end() && it->second.read &&
                         (!it->second.replication_only || opts.from_replication);
          if (applies && !it->second.read(v)) {
            return fail("Aux field '" + Printable(k) + "' has a value this node cannot accept",
                        false);
          }
        }
        res.aux.emplace_back(std::move(k), std::move(v));
        continue;
      }
      case kOpFunction2: {
        std::string code;
        if (!r.ReadString(&code))
          return r.Remaining() == 0 ? eof() : fail("Bad function payload", false);
        res.functions_skipped++;
        continue;
      }
      case kOpModuleAux:
        return fail("Module aux data found: modules are not supported by this node", false);
      case kOpFunctionPreGa:
        return fail("Pre-release function format found: not supported", false);
      case kOpEof:
        break;
      default: {
        const char* tname = TypeName(type);
        if (!tname) return fail("Unknown RDB encoding type " + std::to_string(type), false);
        std::string key;
        if (!r.ReadString(&key)) return r.Remaining() == 0 ? eof() : fail("Bad key name", false);
        if (Unsupported(type)) {
          return fail("Key '" + Printable(key) + "' has type " + tname +
                          ", which this node does not support",
                      false);
        }
        Value v;
        if (!ReadValue(r, type, &v)) {
          bool at_end = r.Remaining() == 0;
          return fail(std::string(at_end ? "Unexpected EOF" : "Bad data") +
                          " reading the value of key '" + Printable(key) + "' (type " + tname + ")",
                      at_end);
        }
        if (opts.skip_expired && expire >= 0 && expire < opts.now_ms) {
          res.keys_expired++;
        } else {
          std::string err;
          if (!visit(dbid, key, v, expire, idle, freq, &err)) return fail(err, false);
          res.keys_loaded++;
        }
        expire = idle = -1;
        freq = -1;
        if (opts.after_key) opts.after_key(static_cast<uint64_t>(r.pos() - p));
        continue;
      }
    }
    break;  // EOF
  }
  if (version >= 5) {
    size_t covered = static_cast<size_t>(r.pos() - p);
    uint8_t b[8];
    if (!r.ReadBytes(b, 8)) return eof();
    uint64_t stored = GetLe(b, 8);
    if (opts.verify_checksum && stored != 0) {
      uint64_t computed = base::Crc64(0, p, covered);
      if (computed != stored) {
        char msg[128];
        snprintf(msg, sizeof(msg), "Wrong RDB checksum expected: (%016llx) got (%016llx)",
                 static_cast<unsigned long long>(stored),
                 static_cast<unsigned long long>(computed));
        return fail(msg, false);
      }
    }
  }
  res.consumed = static_cast<uint64_t>(r.pos() - p);
  res.ok = true;
  return res;
}

LoadResult LoadSnapshot(const uint8_t* p, size_t n, const LoadOptions& opts,
                        const std::vector<db::Db*>& dbs, bool replace_existing) {
  auto& env = db::GetEnv();
  auto saved_on_new = env.on_new;
  env.on_new = nullptr;  // loaded keys are not "new" keys
  LoadOptions o = opts;
  if (o.num_dbs > static_cast<int>(dbs.size())) o.num_dbs = static_cast<int>(dbs.size());
  for (auto& [name, hook] : AuxRegistry())
    if (hook.before_load && (!hook.replication_only || opts.from_replication)) hook.before_load();
  uint32_t lfu_minutes = static_cast<uint32_t>(base::MsTime() / 60000) & 0xffff;
  LoadResult res = ParseSnapshot(
      p, n, o,
      [&](int dbid, std::string& key, Value& v, int64_t expire, int64_t idle, int freq,
          std::string* err) {
        db::Db* d = dbs[dbid];
        if (!d) {
          *err = "No database " + std::to_string(dbid);
          return false;
        }
        if (d->Find(key)) {
          if (!replace_existing) {
            *err = "Duplicated key '" + Printable(key) + "' in DB " + std::to_string(dbid);
            return false;
          }
          d->Delete(key);
        }
        db::Obj* obj = FromValue(key, v, expire);
        if (!obj) {
          *err = "Cannot build the value of key '" + Printable(key) + "'";
          return false;
        }
        if (env.lfu) {
          if (freq >= 0) obj->set_lru((lfu_minutes << 8) | static_cast<uint32_t>(freq));
        } else if (idle >= 0) {
          uint32_t now = db::LruClock();
          uint32_t ago = static_cast<uint32_t>(std::min<int64_t>(idle, db::kLruMax));
          obj->set_lru(now >= ago ? now - ago : db::kLruMax - (ago - now));
        }
        d->Add(obj);
        return true;
      });
  env.on_new = saved_on_new;
  return res;
}

}  // namespace persist
