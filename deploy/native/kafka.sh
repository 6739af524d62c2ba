#!/usr/bin/env bash
# Runs one Apache Kafka node in KRaft mode (combined broker+controller) as a native process,
# from the jars that `make deps` copied out of Maven Central into $LEGCO_CACHE/kafka/libs.
# One script for a single broker and for each node of a cluster on one machine.
# Env: LEGCO_VAR (data dir root), LEGCO_CACHE,
#   KAFKA_NODE_ID (1), KAFKA_PORT (9092), KAFKA_CONTROLLER_PORT (9093): this node;
#   KAFKA_VOTERS (default "<id>@127.0.0.1:<controller port>": a one-node quorum), e.g.
#     "1@127.0.0.1:9093,2@127.0.0.1:9095,3@127.0.0.1:9097" for three nodes;
#   KAFKA_DATA (default $LEGCO_VAR/kafka): this node's data directory;
#   KAFKA_REPLICATION (1): replication factor of the internal topics (consumer offsets,
#     transaction state) and of topics created automatically; min.insync.replicas is 2 when
#     it is 3 or more, else 1;
#   KAFKA_CLUSTER_ID_FILE (default $KAFKA_DATA/cluster.id): the cluster id every node of one
#     cluster is formatted with — nodes of a cluster share one file (created once, under a lock).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${LEGCO_CACHE:-$repo/.cache}
var=${LEGCO_VAR:-$repo/var}
node=${KAFKA_NODE_ID:-1}
port=${KAFKA_PORT:-9092}
cport=${KAFKA_CONTROLLER_PORT:-9093}
voters=${KAFKA_VOTERS:-$node@127.0.0.1:$cport}
data=${KAFKA_DATA:-$var/kafka}
rf=${KAFKA_REPLICATION:-1}
min_isr=1
if [ "$rf" -ge 3 ]; then min_isr=2; fi
id_file=${KAFKA_CLUSTER_ID_FILE:-$data/cluster.id}
mkdir -p "$data" "$(dirname "$id_file")"
props="$data/server.properties"
cat > "$props" <<PROPS
process.roles=broker,controller
node.id=$node
controller.quorum.voters=$voters
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$data/logs
num.partitions=6
auto.create.topics.enable=true
default.replication.factor=$rf
min.insync.replicas=$min_isr
offsets.topic.replication.factor=$rf
offsets.topic.num.partitions=6
transaction.state.log.replication.factor=$rf
transaction.state.log.min.isr=$min_isr
group.initial.rebalance.delay.ms=0
log.retention.hours=168
PROPS
cat > "$data/log4j.properties" <<'L4J'
log4j.rootLogger=WARN, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.server.KafkaServer=INFO
log4j.logger.kafka.server.BrokerServer=INFO
L4J
cp="$cache/kafka/libs/*"
java_opts=(-Xms256m -Xmx768m -XX:+UseG1GC "-Dlog4j.configuration=file:$data/log4j.properties")
if [ ! -f "$data/logs/meta.properties" ]; then
  (  # the first node to get here draws the cluster id; the others read it
    flock 9
    if [ ! -s "$id_file" ]; then  # a random UUID in Kafka's form (22 base64url characters, no leading '-')
      id=-; while [ "${id#-}" != "$id" ]; do id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '='); done
      echo "$id" > "$id_file"
    fi
  ) 9> "$id_file.lock"
  java "${java_opts[@]}" -cp "$cp" kafka.tools.StorageTool format \
    -t "$(cat "$id_file")" -c "$props" --ignore-formatted >/dev/null
fi
exec java "${java_opts[@]}" -cp "$cp" kafka.Kafka "$props"
