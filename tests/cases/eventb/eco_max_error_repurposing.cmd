eventb examples/eventb/heater_eco_param.yaml --max-error D --robustify repurposing --format json
