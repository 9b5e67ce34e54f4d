async function draw(): Promise<void> {
  await tools.draw_shapes({ bbox: [0, 0, 10, 10], point: [1, 2], command: ["move", 1, 2, 3], header: ["v1", "2024-01-01T00:00:00Z"], nothing: [] });
  await tools.draw_shapes({ bbox: [0, 0, 1, 1], point: [1, 2, 3], polyline: [[0, 0], [1, 1]] });
  // @ts-expect-error bbox has four numbers
  await tools.draw_shapes({ bbox: [0, 0, 1] });
}
