#!/bin/sh
# Installs the Debian packages the build (`build`) or the tests (`test`) need, when missing.
# Without an argument: both. Safe to run repeatedly; does nothing when all is present.
set -e
want=""
need() { dpkg -s "$1" >/dev/null 2>&1 || want="$want $1"; }
case "${1:-all}" in
  build) need g++; need make; need libjemalloc-dev ;;
  test) need tcl8.6; need redis-server; need redis-tools; need python3-redis; need strace ;;
  run) need redis-tools ;;
  *) need g++; need make; need libjemalloc-dev; need tcl8.6; need redis-server; need redis-tools; need python3-redis; need strace ;;
esac
[ -z "$want" ] && exit 0
echo "Installing:$want"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq || true
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq $want >/dev/null
# Debian starts a redis-server service on install; the tests start their own.
if command -v systemctl >/dev/null 2>&1; then $SUDO systemctl stop redis-server 2>/dev/null || true; fi
