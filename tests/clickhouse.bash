# clickhouse.bash — two real clickhouse-server instances on 127.0.0.1, the
# shards of a cluster named zt, each with formats/clickhouse.sql run on it,
# for the zt-ingest tests. Each server lives under $CH_DIR/N, on ports
# found free, and is stopped (and waited for) by ch_stop.

# Free TCP ports on 127.0.0.1, one per line.
free_ports() {
	python3 -c '
import socket, sys
ss = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in ss: s.bind(("127.0.0.1", 0))
print("\n".join(str(s.getsockname()[1]) for s in ss))' "$1"
}

# ch_config N: server N's config.xml (its ports in CH_HTTP_N, CH_TCP_N).
ch_config() {
	local n=$1 http tcp inter
	eval "http=\$CH_HTTP_$n tcp=\$CH_TCP_$n inter=\$CH_INTER_$n"
	mkdir -p "$CH_DIR/$n"
	cat > "$CH_DIR/$n/config.xml" <<-XML
	<?xml version="1.0"?>
	<yandex>
	    <logger><level>warning</level><log>$CH_DIR/$n/server.log</log>
	        <errorlog>$CH_DIR/$n/error.log</errorlog><console>0</console></logger>
	    <http_port>$http</http_port>
	    <tcp_port>$tcp</tcp_port>
	    <interserver_http_port>$inter</interserver_http_port>
	    <listen_host>127.0.0.1</listen_host>
	    <path>$CH_DIR/$n/data/</path>
	    <tmp_path>$CH_DIR/$n/tmp/</tmp_path>
	    <user_files_path>$CH_DIR/$n/user_files/</user_files_path>
	    <format_schema_path>$CH_DIR/$n/format_schemas/</format_schema_path>
	    <users_config>/etc/clickhouse-server/users.xml</users_config>
	    <default_profile>default</default_profile>
	    <default_database>default</default_database>
	    <mark_cache_size>5368709</mark_cache_size>
	    <max_connections>64</max_connections>
	    <remote_servers>
	        <zt>
	            <shard><replica><host>127.0.0.1</host><port>$CH_TCP_1</port></replica></shard>
	            <shard><replica><host>127.0.0.1</host><port>$CH_TCP_2</port></replica></shard>
	        </zt>
	    </remote_servers>
	</yandex>
	XML
}

# ch_start N: start server N and wait (up to 30 s) until it answers.
ch_start() {
	local n=$1 http i
	eval "http=\$CH_HTTP_$n"
	[ "$(curl -s "http://127.0.0.1:$http/?query=SELECT%201" 2> /dev/null)" = 1 ] && return 0
	clickhouse-server --config-file="$CH_DIR/$n/config.xml" > "$CH_DIR/$n/out" 2>&1 &
	echo $! > "$CH_DIR/$n/pid"
	# Not one of the shell's jobs: a bare wait (tests/bench/ratio.inc) does
	# not wait for it.
	disown $!
	for i in $(seq 1 300); do
		[ "$(curl -s "http://127.0.0.1:$http/?query=SELECT%201" 2> /dev/null)" = 1 ] && return 0
		sleep 0.1
	done
	echo "clickhouse-server $n did not answer on port $http in 30 s:"
	cat "$CH_DIR/$n/out" "$CH_DIR/$n/error.log" 2> /dev/null | tail -n 20
	return 1
}

# ch_stop N: stop server N, if it runs, and wait for it to end.
ch_stop() {
	local pid
	pid=$(cat "$CH_DIR/$1/pid" 2> /dev/null) || return 0
	kill "$pid" 2> /dev/null && while kill -0 "$pid" 2> /dev/null; do sleep 0.1; done
	rm -f "$CH_DIR/$1/pid"
}

# ch_up: both servers made, started and given zt's tables.
ch_up() {
	local p
	CH_DIR=$(mktemp -d /tmp/zt-ch.XXXXXX)
	p=($(free_ports 6))
	CH_HTTP_1=${p[0]} CH_TCP_1=${p[1]} CH_INTER_1=${p[2]}
	CH_HTTP_2=${p[3]} CH_TCP_2=${p[4]} CH_INTER_2=${p[5]}
	export CH_DIR CH_HTTP_1 CH_TCP_1 CH_INTER_1 CH_HTTP_2 CH_TCP_2 CH_INTER_2
	ch_config 1 && ch_config 2 && ch_start 1 && ch_start 2 || return 1
	clickhouse-client --port "$CH_TCP_1" --multiquery < "$ZT_TOP/formats/clickhouse.sql" &&
		clickhouse-client --port "$CH_TCP_2" --multiquery < "$ZT_TOP/formats/clickhouse.sql"
}

# ch_down: both stopped, their files removed.
ch_down() {
	[ -n "${CH_DIR:-}" ] || return 0
	ch_stop 1
	ch_stop 2
	# Any server of these files a lost pid left behind.
	pkill -f "clickhouse-server --config-file=$CH_DIR/" 2> /dev/null || true
	while pgrep -f "clickhouse-server --config-file=$CH_DIR/" > /dev/null; do sleep 0.1; done
	rm -rf "$CH_DIR"
}

# q SQL: the query's rows (TabSeparated) from server 1.
q() {
	clickhouse-client --port "$CH_TCP_1" --query "$1"
}
