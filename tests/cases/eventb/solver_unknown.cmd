eventb examples/eventb/heater.yaml --rlimit 1
