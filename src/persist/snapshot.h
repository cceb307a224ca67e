// Whole snapshot files/streams (RDB format): header and aux fields, databases, keys with their
// expire and access metadata, EOF and CRC64 trailer. Writes format 10, reads versions 1..11.
//
// Writing streams key by key into a chunk buffer that goes to a file descriptor (or a string),
// so a snapshot never has to fit in memory. Reading works on a bounded byte range (an mmapped
// file or a received buffer); a malformed or truncated input is rejected with a message and
// the offset where it went wrong.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "db/db.h"
#include "persist/value_codec.h"

namespace persist {

// Snapshot opcodes (facts of the format).
enum : uint8_t {
  kOpSlotInfo = 0xF4,
  kOpFunction2 = 0xF5,
  kOpFunctionPreGa = 0xF6,
  kOpModuleAux = 0xF7,
  kOpIdle = 0xF8,
  kOpFreq = 0xF9,
  kOpAux = 0xFA,
  kOpResizeDb = 0xFB,
  kOpExpireTimeMs = 0xFC,
  kOpExpireTime = 0xFD,
  kOpSelectDb = 0xFE,
  kOpEof = 0xFF,
};

struct SaveOptions {
  bool compress = true;     // rdbcompression: LZF for strings longer than 20 bytes
  bool checksum = true;     // rdbchecksum: CRC64 trailer (zero when off)
  bool write_idle = false;  // an LRU maxmemory policy is set: IDLE before each key
  bool write_freq = false;  // an LFU policy: FREQ before each key
  // fd output: fdatasync every this many bytes (rdb-save-incremental-fsync); 0 never.
  uint64_t autosync_bytes = 0;
  bool for_replication = false;  // includes the replication-only aux fields
  // rdb-key-save-delay: microseconds WriteSnapshot sleeps after each key (tests slow a save).
  int64_t key_save_delay_us = 0;
  bool aof_base = false;  // the aux field aof-base says 1: the base file of an AOF
};

// Extra aux fields: a small registry used by replication (hash seed, slot states...).
// `write` returns false to omit the field from this snapshot. `read` is called as soon as
// the field is met while loading (aux fields precede every key); returning false rejects
// the snapshot. Registering a name twice replaces the earlier entry.
struct AuxHook {
  std::function<bool(std::string* value)> write;
  std::function<bool(std::string_view value)> read;
  // Written only into snapshots made for a replica (SaveOptions::for_replication), never
  // into disk snapshots (e.g. cluster-slot-states).
  bool replication_only = false;
  // Called before every load that would read the field, so that a snapshot without it
  // leaves no state from before (a primary that never sends the field).
  std::function<void()> before_load;
};
void RegisterAuxField(const std::string& name, AuxHook hook);
void UnregisterAuxField(const std::string& name);

// Streaming writer. Errors are sticky: after a failed write every call is a no-op and
// Finish() returns false; error() holds the errno of the failure.
class SnapshotWriter {
 public:
  SnapshotWriter(std::string* out, const SaveOptions& opts);
  SnapshotWriter(int fd, const SaveOptions& opts);
  SnapshotWriter(const SnapshotWriter&) = delete;
  SnapshotWriter& operator=(const SnapshotWriter&) = delete;

  // Magic, the standard aux fields (redis-ver, redis-bits, ctime, used-mem, aof-base) and the
  // registered ones.
  void Header(int64_t now_sec, uint64_t used_mem);
  void Aux(std::string_view name, std::string_view value);
  void SelectDb(int id, uint64_t keys, uint64_t expires);
  void Key(std::string_view key, const Value& v, int64_t expire_ms, int64_t idle_sec = -1,
           int freq = -1);
  // A keyspace object (its value, expire and, per options, IDLE/FREQ).
  void Object(db::Obj* o);
  // EOF marker and checksum; flushes. False when any write failed. Calling it again writes
  // nothing more.
  bool Finish();

  bool ok() const { return err_ == 0; }
  int error() const { return err_; }
  uint64_t bytes() const { return total_ + buf_.size(); }
  uint64_t keys() const { return keys_; }
  const SaveOptions& options() const { return opts_; }

 private:
  void MaybeFlush() {
    if (buf_.size() >= kChunk) Flush();
  }
  // A key's record: the opcodes before it; then, once its type byte and value are in buf_
  // from `at`, the key slipped in between.
  void KeyPrefix(int64_t expire_ms, int64_t idle_sec, int freq);
  void KeyEnd(std::string_view key, size_t at);
  void Flush();

  static constexpr size_t kChunk = 64 * 1024;
  std::string* out_ = nullptr;
  int fd_ = -1;
  SaveOptions opts_;
  std::string buf_;
  uint64_t crc_ = 0;
  uint64_t total_ = 0;
  uint64_t since_sync_ = 0;
  uint64_t keys_ = 0;
  int err_ = 0;
  bool finished_ = false;
};

// Writes a complete snapshot of these databases (header, every non-empty db, EOF, CRC):
// Finish() included.
bool WriteSnapshot(SnapshotWriter& w, const std::vector<db::Db*>& dbs, int64_t now_sec,
                   uint64_t used_mem);

struct LoadOptions {
  bool verify_checksum = true;  // rdbchecksum
  bool skip_expired = true;     // a primary drops keys already expired
  int64_t now_ms = 0;
  int num_dbs = 16;
  // Hashes and sorted sets in listpacks reach the visitor as their listpack (Value::listpack),
  // for FromValue to build in place.
  bool keep_listpacks = false;
  bool from_replication = false;  // a replica loading its primary's snapshot: reads the
                                  // replication-only aux fields (ignored from disk)
  // Called after each key read (kept or expired) with the bytes parsed so far: the node
  // serves clients and the cluster bus meanwhile (server/loading.h).
  std::function<void(uint64_t parsed)> after_key;
  // Called with the used-mem aux field when it is read (INFO's loading_rdb_used_mem).
  std::function<void(int64_t)> used_mem;
  // Called with each key left out because it had expired (skip_expired).
  std::function<void(int dbid, std::string_view key)> skipped_expired;
  // Called with each aux field and each SELECTDB as they are read, with the offset just past
  // them (valkey-check-rdb's report).
  std::function<void(uint64_t at, std::string_view name, std::string_view value)> aux_read;
  std::function<void(uint64_t at, int dbid)> db_selected;
};

struct LoadResult {
  bool ok = false;
  bool short_read = false;  // the input ended in the middle of the snapshot
  std::string error;        // what went wrong, for the log
  uint64_t error_offset = 0;
  int version = 0;
  uint64_t consumed = 0;  // bytes up to and including the checksum
  uint64_t keys_loaded = 0, keys_expired = 0;
  uint64_t empty_keys_skipped = 0;  // lists, sets, sorted sets, hashes of no element
  uint64_t functions_skipped = 0;
  std::string producer;  // "Valkey version 8.0.1" / "Redis version 7.0.15" when present
  int64_t ctime = -1;
  int64_t used_mem = -1;
  std::vector<std::pair<std::string, std::string>> aux;  // every aux field met, in order
};

// One key read from a snapshot. Returning false stops the load (the caller sets the error).
using KeyVisitor = std::function<bool(int dbid, std::string& key, Value& v, int64_t expire_ms,
                                      int64_t idle_sec, int freq, std::string* err)>;

// Reads a snapshot whose bytes come in pieces (a replica parses its primary's snapshot while it
// arrives), record by record: a record is taken whole or not at all, so every call consumes a
// prefix of what it is given and the caller keeps the rest for the next call, with more bytes
// after it. Aux hooks and the visitor see only whole records. A record that did not fit is not
// tried again before the bytes given have doubled, so a big value costs at most twice its
// parse however finely it arrives.
class SnapshotParser {
 public:
  enum class Status { kMore, kDone, kError };
  SnapshotParser(const LoadOptions& opts, KeyVisitor visit);
  // Parses [p, p+n): the bytes not consumed by the last call, then new ones. at_end: no more
  // will come (a record cut short is then an error). *consumed: whole records read from p.
  // kMore also when the deadline stopped it (call again with the rest).
  Status Feed(const uint8_t* p, size_t n, bool at_end, size_t* consumed);
  // base::FastUs() after which Feed returns after the key it is reading (0: none), so that a
  // load in pieces never holds the event loop longer than a slice.
  void set_deadline_us(int64_t t) { deadline_us_ = t; }
  // The outcome so far: counts, producer, aux fields; error and offset after kError; `consumed`
  // and `ok` after kDone.
  const LoadResult& result() const { return res_; }
  uint64_t parsed() const { return total_; }  // bytes consumed by every call
  // Reads of a record that stopped short, to be tried again with more bytes: each cost a
  // parse of what the record had.
  uint64_t cut_reads() const { return cut_reads_; }
  // Bytes the next call must be given before it reads anything (a cut record's doubling).
  size_t wants() const { return retry_at_; }

 private:
  Status Fail(std::string msg, bool short_read, uint64_t at);

  LoadOptions opts_;
  KeyVisitor visit_;
  LoadResult res_;
  enum Phase { kHeader, kRecords, kChecksum, kFinished } phase_ = kHeader;
  uint64_t total_ = 0;   // bytes consumed before the current call's p
  uint64_t crc_ = 0;     // of every byte consumed up to the checksum
  size_t retry_at_ = 0;  // a cut record: bytes needed before it is read again
  uint64_t cut_reads_ = 0;
  int64_t deadline_us_ = 0;
  int dbid_ = 0;
  int64_t expire_ = -1, idle_ = -1;
  int freq_ = -1;
};

// Parses a snapshot in [p, p+n), calling visit for each key that is kept. Expired keys are
// counted and not visited when opts.skip_expired.
LoadResult ParseSnapshot(const uint8_t* p, size_t n, const LoadOptions& opts,
                         const KeyVisitor& visit);

// Loads a snapshot into `dbs` (indexed by db id; opts.num_dbs = dbs.size()), in pieces as
// SnapshotParser reads it. Objects are built in the encodings the contents call for; IDLE/FREQ
// set their access clock. A duplicate key is an error unless `replace_existing`. On failure
// the databases hold whatever was added so far: load into empty staging databases and swap
// them in on success. Loaded keys are not "new" keys (db::Env::on_new is off during Feed).
class SnapshotLoader {
 public:
  SnapshotLoader(const LoadOptions& opts, std::vector<db::Db*> dbs, bool replace_existing);
  SnapshotParser::Status Feed(const uint8_t* p, size_t n, bool at_end, size_t* consumed);
  void set_deadline_us(int64_t t) { parser_.set_deadline_us(t); }
  size_t wants() const { return parser_.wants(); }
  const LoadResult& result() const { return parser_.result(); }
  uint64_t parsed() const { return parser_.parsed(); }

 private:
  bool Visit(int dbid, std::string& key, Value& v, int64_t expire, int64_t idle, int freq,
             std::string* err);
  std::vector<db::Db*> dbs_;
  bool replace_existing_;
  uint32_t lfu_minutes_;
  SnapshotParser parser_;
};

// The whole snapshot in [p, p+n) at once (SnapshotLoader with one Feed).
LoadResult LoadSnapshot(const uint8_t* p, size_t n, const LoadOptions& opts,
                        const std::vector<db::Db*>& dbs, bool replace_existing = false);

}  // namespace persist
