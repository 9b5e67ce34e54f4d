async function combos(): Promise<void> {
  await tools.send_notification({ target: { channel: "sms", phone: "+41790000000" }, message: "hi" });
  await tools.send_notification({ target: { channel: "webhook", url: "https://x", headers: { a: "b" } }, message: "hi" });
  // @ts-expect-error email needs a subject
  await tools.send_notification({ target: { channel: "email", to: "a@b.c" }, message: "hi" });
  await tools.update_pet({ id: 1, name: "Rex", tag: null, owner: { id: 2 } });
  await tools.find_user({ email: "a@b.c", include: ["roles"] });
  await tools.set_threshold({ value: "50%", unit: "ms", window: { size: 3, label: "w" } });
}
