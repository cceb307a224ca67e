// Whole-snapshot writer (streaming, chunked, CRC64) and bounded reader.
#include "persist/snapshot.h"

#include <errno.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>

#include "base/crc64.h"
#include "base/log.h"
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

// Module values: this node has no modules. (A hash zipmap, type 9, loads: ReadValue converts it.)
bool Unsupported(uint8_t t) { return t == 6 || t == 7; }

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

void SnapshotWriter::KeyPrefix(int64_t expire_ms, int64_t idle_sec, int freq) {
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
}

void SnapshotWriter::KeyEnd(std::string_view key, size_t at) {
  std::string k;
  WriteString(&k, key, opts_.compress);
  buf_.insert(at + 1, k);
  keys_++;
  MaybeFlush();
}

void SnapshotWriter::Key(std::string_view key, const Value& v, int64_t expire_ms, int64_t idle_sec,
                         int freq) {
  KeyPrefix(expire_ms, idle_sec, freq);
  // Layout: type byte, key, value. WriteValue emits type+value: the key goes in between.
  size_t at = buf_.size();
  WriteValue(&buf_, v, opts_.compress);
  KeyEnd(key, at);
}

void SnapshotWriter::Object(db::Obj* o) {
  int64_t idle = -1;
  int freq = -1;
  if (opts_.write_idle) {
    uint32_t now = db::LruClock(), lru = o->lru();
    idle = now >= lru ? now - lru : now + (db::kLruMax - lru);
  }
  if (opts_.write_freq) freq = db::LfuCounter(o);
  KeyPrefix(o->expire(), idle, freq);
  size_t at = buf_.size();
  WriteObject(&buf_, o, opts_.compress);
  KeyEnd(o->key(), at);
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

SnapshotParser::SnapshotParser(const LoadOptions& opts, KeyVisitor visit)
    : opts_(opts), visit_(std::move(visit)) {}

SnapshotParser::Status SnapshotParser::Fail(std::string msg, bool short_read, uint64_t at) {
  res_.ok = false;
  res_.short_read = short_read;
  res_.error = std::move(msg);
  res_.error_offset = at;
  phase_ = kFinished;
  return Status::kError;
}

SnapshotParser::Status SnapshotParser::Feed(const uint8_t* p, size_t n, bool at_end,
                                            size_t* consumed) {
  *consumed = 0;
  if (phase_ == kFinished) return res_.ok ? Status::kDone : Status::kError;
  if (!at_end && n < retry_at_) return Status::kMore;
  retry_at_ = 0;
  Reader r(p, n);
  const uint8_t* rec = p;  // where the record being read starts
  size_t in_crc = 0;       // bytes of p already added to crc_
  auto at = [&] { return total_ + static_cast<uint64_t>(r.pos() - p); };
  // Everything before `upto` is consumed.
  auto take = [&](const uint8_t* upto) {
    size_t k = static_cast<size_t>(upto - p);
    crc_ = base::Crc64(crc_, p + in_crc, k - in_crc);  // never the checksum's own bytes
    in_crc = k;
    *consumed = k;
  };
  // The record at `rec` is cut short: wait for twice the bytes it had, or fail at the end.
  auto cut = [&](const std::string& msg) {
    if (at_end) {
      Status st = Fail(msg, true, at());
      *consumed = 0;
      return st;
    }
    take(rec);
    cut_reads_++;
    retry_at_ = 2 * (n - *consumed);
    total_ += *consumed;
    return Status::kMore;
  };
  auto bad = [&](const std::string& msg) { return Fail(msg, false, at()); };
  const std::string kEof = "Unexpected EOF reading RDB file";

  if (phase_ == kHeader) {
    char magic[9];
    if (!r.ReadBytes(magic, 9)) return cut(kEof);
    if (memcmp(magic, "REDIS", 5) != 0) return bad("Wrong signature trying to load DB from file");
    int version = 0;
    for (int i = 5; i < 9; i++) {
      if (magic[i] < '0' || magic[i] > '9')
        return bad("Wrong signature trying to load DB from file");
      version = version * 10 + (magic[i] - '0');
    }
    res_.version = version;
    if (version < 1 || version > kMaxReadVersion)
      return bad("Can't handle RDB format version " + std::to_string(version));
    phase_ = kRecords;
    rec = r.pos();
  }

  while (phase_ == kRecords) {
    rec = r.pos();
    uint8_t type;
    if (!r.ReadByte(&type)) return cut(kEof);
    switch (type) {
      case kOpExpireTimeMs: {
        uint8_t b[8];
        if (!r.ReadBytes(b, 8)) return cut(kEof);
        expire_ = static_cast<int64_t>(GetLe(b, 8));
        continue;
      }
      case kOpExpireTime: {
        uint8_t b[4];
        if (!r.ReadBytes(b, 4)) return cut(kEof);
        expire_ = static_cast<int64_t>(static_cast<int32_t>(GetLe(b, 4))) * 1000;
        continue;
      }
      case kOpFreq: {
        uint8_t b;
        if (!r.ReadByte(&b)) return cut(kEof);
        freq_ = b;
        continue;
      }
      case kOpIdle: {
        uint64_t v;
        if (!r.ReadLen(&v, nullptr)) return cut(kEof);
        idle_ = static_cast<int64_t>(v & INT64_MAX);
        continue;
      }
      case kOpSelectDb: {
        uint64_t id;
        if (!r.ReadLen(&id, nullptr)) return cut(kEof);
        if (id >= static_cast<uint64_t>(opts_.num_dbs)) {
          return bad("Data file was created with a server configured to handle more than " +
                     std::to_string(opts_.num_dbs) + " databases (SELECTDB " + std::to_string(id) +
                     ")");
        }
        dbid_ = static_cast<int>(id);
        if (opts_.db_selected) opts_.db_selected(at(), dbid_);
        continue;
      }
      case kOpResizeDb: {
        uint64_t a, b;
        if (!r.ReadLen(&a, nullptr) || !r.ReadLen(&b, nullptr)) return cut(kEof);
        continue;
      }
      case kOpAux: {
        std::string k, v;
        if (!r.ReadString(&k) || !r.ReadString(&v))
          return r.short_read() ? cut(kEof) : bad("Bad aux field");
        if (k == "redis-ver") {
          res_.producer = "Redis version " + v;
        } else if (k == "valkey-ver") {
          res_.producer = "Valkey version " + v;
        } else if (k == "ctime") {
          base::ParseInt64(v, &res_.ctime);
        } else if (k == "used-mem") {
          base::ParseInt64(v, &res_.used_mem);
          if (opts_.used_mem) opts_.used_mem(res_.used_mem);
        } else {
          auto it = AuxRegistry().find(k);
          bool applies = it != AuxRegistry().end() && it->second.read &&
                         (!it->second.replication_only || opts_.from_replication);
          if (applies && !it->second.read(v))
            return bad("Aux field '" + Printable(k) + "' has a value this node cannot accept");
        }
        if (opts_.aux_read) opts_.aux_read(at(), k, v);
        res_.aux.emplace_back(std::move(k), std::move(v));
        continue;
      }
      case kOpFunction2: {
        std::string code;
        if (!r.ReadString(&code)) return r.short_read() ? cut(kEof) : bad("Bad function payload");
        res_.functions_skipped++;
        continue;
      }
      case kOpModuleAux:
        return bad("Module aux data found: modules are not supported by this node");
      case kOpFunctionPreGa:
        return bad("Pre-release function format found: not supported");
      case kOpEof:
        phase_ = kChecksum;
        break;
      default: {
        const char* tname = TypeName(type);
        if (!tname) return bad("Unknown RDB encoding type " + std::to_string(type));
        std::string key;
        if (!r.ReadString(&key)) return r.short_read() ? cut(kEof) : bad("Bad key name");
        if (Unsupported(type)) {
          return bad("Key '" + Printable(key) + "' has type " + tname +
                     ", which this node does not support");
        }
        Value v;
        if (!ReadValue(r, type, &v, opts_.keep_listpacks)) {
          std::string what =
              " reading the value of key '" + Printable(key) + "' (type " + tname + ")";
          return r.short_read() ? cut("Unexpected EOF" + what) : bad("Bad data" + what);
        }
        if (EmptyCollection(v)) {
          // Old servers' bugs left empty keys in snapshots (Redis issue #8453): skipped, as
          // Valkey 8 skips them, rather than refusing the whole file.
          if (res_.empty_keys_skipped++ < 10)
            LOG_NOTICE("rdbLoadObject skipping empty key: %s", Printable(key).c_str());
        } else if (opts_.skip_expired && expire_ >= 0 && expire_ < opts_.now_ms) {
          res_.keys_expired++;
          if (opts_.skipped_expired) opts_.skipped_expired(dbid_, key);
        } else {
          std::string err;
          if (!visit_(dbid_, key, v, expire_, idle_, freq_, &err)) return bad(err);
          res_.keys_loaded++;
        }
        expire_ = idle_ = -1;
        freq_ = -1;
        if (opts_.after_key) opts_.after_key(at());
        if (deadline_us_ && base::FastUs() >= deadline_us_) {
          take(r.pos());
          total_ += *consumed;
          return Status::kMore;
        }
        continue;
      }
    }
  }
  take(r.pos());  // up to and including the EOF opcode: the checksum covers it
  if (phase_ == kChecksum) {
    rec = r.pos();
    if (res_.version >= 5) {
      uint8_t b[8];
      if (!r.ReadBytes(b, 8)) return cut(kEof);
      uint64_t stored = GetLe(b, 8);
      if (opts_.verify_checksum && stored != 0 && crc_ != stored) {
        char msg[128];
        // Valkey 8's words: "expected" is what the data hashes to, "got" what the file says.
        snprintf(msg, sizeof(msg),
                 "Wrong RDB checksum expected: (%llx) but got (%llx). Aborting now.",
                 static_cast<unsigned long long>(crc_), static_cast<unsigned long long>(stored));
        return bad(msg);
      }
    }
    phase_ = kFinished;
    *consumed = static_cast<size_t>(r.pos() - p);
    total_ += *consumed;
    res_.consumed = total_;
    res_.ok = true;
    return Status::kDone;
  }
  total_ += *consumed;
  return Status::kMore;
}

LoadResult ParseSnapshot(const uint8_t* p, size_t n, const LoadOptions& opts,
                         const KeyVisitor& visit) {
  SnapshotParser parser(opts, visit);
  size_t consumed;
  parser.Feed(p, n, true, &consumed);
  return parser.result();
}

SnapshotLoader::SnapshotLoader(const LoadOptions& opts, std::vector<db::Db*> dbs,
                               bool replace_existing)
    : dbs_(std::move(dbs)),
      replace_existing_(replace_existing),
      lfu_minutes_(static_cast<uint32_t>(base::MsTime() / 60000) & 0xffff),
      parser_(
          [&] {
            LoadOptions o = opts;
            o.keep_listpacks = true;  // Visit builds with FromValue
            if (o.num_dbs > static_cast<int>(dbs_.size()))
              o.num_dbs = static_cast<int>(dbs_.size());
            return o;
          }(),
          [this](int dbid, std::string& key, Value& v, int64_t expire, int64_t idle, int freq,
                 std::string* err) { return Visit(dbid, key, v, expire, idle, freq, err); }) {
  for (auto& [name, hook] : AuxRegistry())
    if (hook.before_load && (!hook.replication_only || opts.from_replication)) hook.before_load();
}

bool SnapshotLoader::Visit(int dbid, std::string& key, Value& v, int64_t expire, int64_t idle,
                           int freq, std::string* err) {
  db::Db* d = dbs_[dbid];
  if (!d) {
    *err = "No database " + std::to_string(dbid);
    return false;
  }
  if (d->Find(key)) {
    if (!replace_existing_) {
      *err = "Duplicated key '" + Printable(key) + "' in DB " + std::to_string(dbid);
      return false;
    }
    d->Delete(key);
  }
  db::Obj* obj = FromValue(key, v, expire);
  if (!obj) {
    // A listpack read in place is checked as it is built (a field or member twice, an odd
    // count, a score that is no number): what ReadValue says of the plain form.
    *err = "Bad data reading the value of key '" + Printable(key) + "'";
    return false;
  }
  if (db::GetEnv().lfu) {
    if (freq >= 0) obj->set_lru((lfu_minutes_ << 8) | static_cast<uint32_t>(freq));
  } else if (idle >= 0) {
    uint32_t now = db::LruClock();
    uint32_t ago = static_cast<uint32_t>(std::min<int64_t>(idle, db::kLruMax));
    obj->set_lru(now >= ago ? now - ago : db::kLruMax - (ago - now));
  }
  d->Add(obj);
  return true;
}

SnapshotParser::Status SnapshotLoader::Feed(const uint8_t* p, size_t n, bool at_end,
                                            size_t* consumed) {
  auto& env = db::GetEnv();
  auto saved_on_new = env.on_new;
  env.on_new = nullptr;  // loaded keys are not "new" keys
  SnapshotParser::Status st = parser_.Feed(p, n, at_end, consumed);
  env.on_new = saved_on_new;
  return st;
}

LoadResult LoadSnapshot(const uint8_t* p, size_t n, const LoadOptions& opts,
                        const std::vector<db::Db*>& dbs, bool replace_existing) {
  SnapshotLoader loader(opts, dbs, replace_existing);
  size_t consumed;
  loader.Feed(p, n, true, &consumed);
  return loader.result();
}

}  // namespace persist
