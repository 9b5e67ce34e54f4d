async function trees(): Promise<void> {
  await tools.json_patch_apply({ target: "/a", value: { nested: [1, "two", null, { deep: true }] } });
  await tools.org_chart({ root: { name: "Ada", reports: [{ name: "Bob", reports: [] }] }, by_path: { x: "uuid" } });
  await tools.boolean_expr({ op: "and", args: [{ op: "var", name: "a" }, { op: "not", args: [{ op: "var", name: "b" }] }] });
  await tools.anchors_and_ids();
  await tools.anchors_and_ids({ point: { x: 1, y: 2 }, shape: { kind: "circle" } });
}
