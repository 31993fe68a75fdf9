export default async function run({ message }) {
  message('about to fail');
  throw new Error('deliberate crash');
}
