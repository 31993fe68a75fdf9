/** Says back the fields of its JSON input, one message, so a test sees what arrived. */
export default async function priced({ input, message, result }) {
  const fields = JSON.parse(input);
  message(`${fields.city} for ${fields.days} days in ${fields.units ?? 'metric'}`);
  result('forecast echoed');
}
