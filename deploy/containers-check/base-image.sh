#!/usr/bin/env bash
# The stand-in for python:3.11-slim (image registries cannot be reached from here): a minimal
# Debian bookworm root filesystem made by debootstrap from Debian's mirror and imported with
# `docker import` under the same name. Debian's python3 is 3.11, as the official image's; pip
# installs into /usr/local as there (Debian's "externally managed" marker is removed, as the
# official image has none). Cached: an existing python:3.11-slim (stand-in or real) is kept, so
# only the first run on a machine pays for debootstrap.
set -euo pipefail

IMAGE="${1:-python:3.11-slim}"
DOCKER="${DOCKER:-docker}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"

if "$DOCKER" image inspect "$IMAGE" >/dev/null 2>&1; then
  echo "== base image $IMAGE: present, kept ($("$DOCKER" image inspect -f '{{index .Config.Labels "org.arm-ka.stand-in"}}' "$IMAGE" 2>/dev/null || true))"
  exit 0
fi

ROOTFS="$(mktemp -d /tmp/arm-ka-rootfs.XXXXXX)"
trap 'rm -rf "$ROOTFS"' EXIT
echo "== base image $IMAGE: debootstrap bookworm into $ROOTFS (first run on this machine)"
debootstrap --variant=minbase \
  --include=python3,python3-pip,python-is-python3,ca-certificates,netbase,tzdata \
  bookworm "$ROOTFS" "$MIRROR" >"$ROOTFS.log" 2>&1 || { tail -n 30 "$ROOTFS.log"; exit 1; }
rm -f "$ROOTFS.log"
# pip may install system-wide (into /usr/local), as in the official image.
rm -f "$ROOTFS"/usr/lib/python3*/EXTERNALLY-MANAGED
# The official image's apt sources and a clean package cache.
chroot "$ROOTFS" apt-get clean
rm -rf "$ROOTFS"/var/lib/apt/lists/* "$ROOTFS"/var/cache/apt/*.bin
tar -C "$ROOTFS" -c . | "$DOCKER" import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'LABEL org.arm-ka.stand-in="python:3.11-slim from debootstrap bookworm"' \
  --change 'CMD ["python3"]' \
  - "$IMAGE" >/dev/null
echo "== base image $IMAGE: imported ($("$DOCKER" image inspect -f '{{.Size}}' "$IMAGE") bytes)"
