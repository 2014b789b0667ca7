eventb examples/eventb/heater.yaml
