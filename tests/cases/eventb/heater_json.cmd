eventb examples/eventb/heater.yaml --format json
