#!/bin/sh
# rr measures its window only: throughput and latencies count the requests
# that arrive after warmup_ms, over duration_ms. At load 0.1 on adl-desktop
# (16 cores, 50 us service) the offered rate is 0.1 x 16 / 50 us = 32,000
# req/s; the measured throughput must be within 5 % of it whatever the
# warm-up, none included (counting warm-up requests gave 47,800 and 112,785
# req/s at 100 and 500 ms).
# 200 ms hold ~6,400 requests, a Poisson spread of 1.25 %.
. tests/lib.sh

for warmup in 0 100 500; do
    cat >"$T/rr.ini" <<INI
[scenario]
machine = adl-desktop
replications = 1
[workload]
type = rr
load = 0.1
service_us = 50
warmup_ms = $warmup
duration_ms = 200
[variant base]
kernel = 6.12
INI
    "$P" run "$T/rr.ini" --quiet --format csv >"$T/out.csv" || fail "run with warmup_ms $warmup"
    rps=$(awk -F, '$4 == "throughput_rps" { print $7 }' "$T/out.csv")
    awk -v x="$rps" 'BEGIN { exit !(x >= 30400 && x <= 33600) }' ||
        fail "warmup_ms $warmup: throughput $rps req/s, offered 32000 (+-5 %)"
    echo "warmup_ms $warmup: throughput $rps req/s (offered 32000)"
done
ok "rr counts only the measurement window"
