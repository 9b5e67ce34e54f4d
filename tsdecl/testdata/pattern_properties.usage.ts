async function paths(): Promise<void> {
  await tools.put_openapi_path({ extensions: { "x-internal": true }, ids: { user_id: "u" }, labels: { team: "core", other: "x" }, mixed: { "x-a": "s", "12": 3, other: false } });
  await tools.put_openapi_path();
}
