async function weather(): Promise<string> {
  // A result that reports an error rejects with a ToolError instead.
  let r;
  try {
    r = await tools.mcp__weather_api__get_forecast({ latitude: 47.4, longitude: 8.5 });
  } catch (e) {
    return e instanceof Error ? e.message : "error";
  }
  const first = r.content[0];
  const summary = first?.type === "text" ? first.text : "";
  const highs = r.structuredContent.daily.map((d) => d.high_c);
  const img = await tools.mcp__everything__getTinyImage();
  const block = img.content.find((c) => c.type === "image");
  const patched = await tools.apply_patch("*** Begin Patch\n*** End Patch");
  await tools.untyped();
  await tools.untyped({ anything: 1 });
  const cmd = await tools.exec_command({ cmd: "ls" });
  return `${summary} ${highs.join(",")} ${block?.type} ${String(patched)} ${cmd.output} ${cmd.exit_code ?? "running"}`;
}
