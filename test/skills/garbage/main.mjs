export default async function run({ message }) {
  message('fine so far');
  process.stdout.write('this is not json\n');
  await new Promise((resolve) => setTimeout(resolve, 5000));
}
