eventb examples/eventb/heater_param.yaml
