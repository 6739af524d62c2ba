#!/usr/bin/env bash
# Runs one Apache Kafka broker in KRaft mode (combined broker+controller) as a native process,
# from the jars that `make deps` copied out of Maven Central into $LEGCO_CACHE/kafka/libs.
# Env: KAFKA_PORT (9092), KAFKA_CONTROLLER_PORT (9093), LEGCO_VAR (data dir root), LEGCO_CACHE.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${LEGCO_CACHE:-$repo/.cache}
var=${LEGCO_VAR:-$repo/var}
port=${KAFKA_PORT:-9092}
cport=${KAFKA_CONTROLLER_PORT:-9093}
data="$var/kafka"
mkdir -p "$data"
props="$data/server.properties"
cat > "$props" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$data/logs
num.partitions=6
auto.create.topics.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=6
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
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
  java "${java_opts[@]}" -cp "$cp" kafka.tools.StorageTool format \
    -t "$(java -cp "$cp" kafka.tools.StorageTool random-uuid)" -c "$props" --ignore-formatted >/dev/null
fi
exec java "${java_opts[@]}" -cp "$cp" kafka.Kafka "$props"
