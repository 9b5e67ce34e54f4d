// Tools are bound as tools.<name>(args) and return promises.
const weather = await tools.get_weather({ city: "Lisbon" });
text(`${weather.city}: ${weather.temperature_c}°C, ${weather.conditions}`);
return weather;
