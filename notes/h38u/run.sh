#!/bin/bash
# usage: h38u-run.sh EVBENCH PARALLEL PATH [extra --set...]
E=$1; P=$2; D=$3; shift 3
$E run --quiet --set protocol=one-to-one --set nodes=2 --set senders=1 --set parallel=$P --set fragment.size=524288 --set ru_buffer=512KiB --set poll_mode=busy --set duration=4s --set warmup=1s --set driver=ucx --set driver_options.tls=tcp --set driver_options.error_handling=none --set data_path=$D "$@" --json /tmp/h38u-$$.json >/tmp/h38u-$$.err 2>&1 || { tail -2 /tmp/h38u-$$.err; exit 1; }
python3 -c "import json,sys; print('%.2f' % json.load(open(sys.argv[1]))['results']['bandwidth_gbps']['aggregate'])" /tmp/h38u-$$.json
rm -f /tmp/h38u-$$.json /tmp/h38u-$$.err
