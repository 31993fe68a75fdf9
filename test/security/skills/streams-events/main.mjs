export default async function run(context) {
  const megabyte = 'm'.repeat(1_000_000);
  for (let sent = 0; sent < 60; sent++) {
    context.message(megabyte);
    // Paced, so the pipe drains and only the event limit can stop it.
    await context.sleep(5);
  }
}
