// Sockets: listen (TCP and Unix), accept, non-blocking connect, per-connection tuning and
// address formatting. Client sockets, the replica link and the cluster bus all use these; no
// other file calls socket(), bind(), listen(), accept4() or connect().
#pragma once
#include <sys/socket.h>

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
// Starts a non-blocking TCP connect to host:port (resolved now). Returns the fd, whose
// writability reports the outcome (ConnectError), or -1 with *err set.
int ConnectTcp(const std::string& host, int port, std::string* err);
// 0 once a non-blocking connect succeeded, else its errno.
int ConnectError(int fd);
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
