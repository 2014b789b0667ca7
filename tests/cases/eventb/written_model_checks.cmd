eventb examples/eventb/heater_robust.yaml
