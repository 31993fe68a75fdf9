export default async function run({ message }) {
  message('started');
  await new Promise(() => setInterval(() => {}, 1000));
}
