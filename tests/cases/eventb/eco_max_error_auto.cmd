eventb examples/eventb/heater_eco_param.yaml --max-error D
