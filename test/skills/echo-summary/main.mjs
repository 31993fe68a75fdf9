export default async function run({ input, result }) {
  if (input.startsWith('fail:')) throw new Error(input.slice('fail:'.length));
  result(input);
}
