// Sockets: listen (TCP and Unix), accept, non-blocking connect, a bounded wait on one socket,
// per-connection tuning and address formatting. Client sockets, the replica link, the cluster
// bus and MIGRATE all use these; no other file calls socket(), bind(), listen(), accept4(),
// connect() or poll().
#pragma once
#include <sys/socket.h>

#include <cstdint>
#include <string>

namespace net {

// A listening TCP socket on addr ("*" / "0.0.0.0" any IPv4, "::*" any IPv6, else a literal
// address) and port, non-blocking. Returns the fd, or -1 with *err set; *unavailable tells
// that the address does not exist on this host or its family is off (callers may skip such
// optional addresses).
int ListenTcp(const std::string& addr, int port, int backlog, bool* unavailable, std::string* err);
// A listening Unix socket at path (an old socket file is replaced). -1 with *err on failure.
int ListenUnix(const std::string& path, int backlog, std::string* err);
// The next pending connection, non-blocking and close-on-exec; -1 with errno when none.
int Accept(int listen_fd, sockaddr_storage* peer);
// Starts a non-blocking TCP connect to host:port (resolved now), from source when it is an
// address of this host (else, or empty, the kernel picks: bind-source-addr's best effort, as
// Valkey 8). Returns the fd, whose
// writability reports the outcome (ConnectError), or -1 with *err set.
int ConnectTcp(const std::string& host, int port, std::string* err,
               const std::string& source = "");
// 0 once a non-blocking connect succeeded, else its errno.
int ConnectError(int fd);
// Blocks up to timeout_ms until fd is ready for mask (kReadable or kWritable, event_loop.h); an
// error or hang-up counts as ready (the next call on fd reports it). False on timeout (or if
// poll itself fails).
bool WaitFd(int fd, int mask, int64_t timeout_ms);
// TCP_NODELAY, and keepalive probes every keepalive_secs (0: off).
void TuneTcp(int fd, int keepalive_secs);
// "ip:port" of an address, "" for other families.
std::string FormatAddr(const sockaddr_storage& sa);
// The local or peer address of a connected socket as "ip:port" ("" when unknown).
std::string LocalAddr(int fd);
bool IsLoopback(const sockaddr_storage& sa);
// A literal IPv4 or IPv6 address (port 0); false for anything else.
bool ParseIp(const std::string& ip, sockaddr_storage* out);
// The address part of sa, as inet_ntop writes it.
std::string FormatIp(const sockaddr_storage& sa);

}  // namespace net
