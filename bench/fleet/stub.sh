# Sourced by the benches that run the stub backend (bench/fleet/stub_backend.py).
#
# start_stub LATENCY [PORT]: starts the stub on PORT (by default a free port the system picks),
# adds its pid to the caller's `pids`, waits until it is bound, and sets `stub_port`. A port a
# bench fixed itself could be taken, and the workers would then talk to whatever holds it.
# Needs `work` (the bench's directory) and `pids` (an array) set by the caller.
start_stub() {
    local latency=$1 port=${2:-0} log="$work/stub-backend.log"
    rm -f "$work/stub.port"
    python3 bench/fleet/stub_backend.py --port "$port" --port-file "$work/stub.port" --latency "$latency" >>"$log" 2>&1 &
    pids+=($!)
    for _ in $(seq 1 100); do
        [ -s "$work/stub.port" ] && { stub_port=$(cat "$work/stub.port"); return 0; }
        kill -0 "${pids[-1]}" 2>/dev/null || break
        sleep 0.1
    done
    echo "the stub backend did not start on port $port; its log:" >&2
    tail -n 20 "$log" >&2
    exit 1
}
