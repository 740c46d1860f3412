#!/bin/sh
# The official image's first start, in short: an empty data directory gets a cluster whose
# superuser is POSTGRES_USER (password POSTGRES_PASSWORD, scram over TCP, trust on the local
# socket) and the database POSTGRES_DB; then the server runs in the foreground.
set -eu
: "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=$POSTGRES_USER}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile="$(mktemp)"
  printf '%s' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}" > "$pwfile"
  initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pwfile" -E UTF8 --locale=C.UTF-8 \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  if [ "$POSTGRES_DB" != postgres ]; then createdb -U "$POSTGRES_USER" "$POSTGRES_DB"; fi
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo "stand-in postgres: initialised $PGDATA for $POSTGRES_USER/$POSTGRES_DB"
fi
if [ "$1" = postgres ]; then shift; exec postgres -D "$PGDATA" "$@"; fi
exec "$@"
