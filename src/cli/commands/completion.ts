import type { Command } from 'commander';
import { usageError } from '../output.js';

/** One command of the tree: its path from the top ('' for skillet itself), subcommands and options. */
interface Node {
  path: string;
  subcommands: { name: string; description: string }[];
  options: { long?: string; short?: string; description: string }[];
}

/** Walks the program as built, so the scripts never fall behind the commands. */
function nodesOf(program: Command): Node[] {
  const globals = program.options.filter((option) => option.long !== '--version');
  const nodes: Node[] = [];
  const visit = (command: Command, path: string) => {
    const own = path === '' ? program.options : [...command.options, ...globals];
    nodes.push({
      path,
      subcommands: command.commands.map((sub) => ({ name: sub.name(), description: sub.description() })),
      options: [...own.filter((option) => !option.hidden), { long: '--help', short: '-h', description: 'show help' }].map(
        (option) => ({
          ...(option.long ? { long: option.long } : {}),
          ...(option.short ? { short: option.short } : {}),
          description: option.description,
        }),
      ),
    });
    for (const sub of command.commands) visit(sub, path === '' ? sub.name() : `${path} ${sub.name()}`);
  };
  visit(program, '');
  return nodes;
}

const flags = (node: Node) =>
  node.options
    .flatMap((option) => [option.long, option.short])
    .filter(Boolean)
    .join(' ');
const names = (node: Node) => node.subcommands.map((sub) => sub.name).join(' ');
/** Descriptions go inside single quotes in the fish script. */
const quoted = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** Shared by bash and zsh: the subcommands and the options at a command path. */
function lookups(nodes: Node[]): string {
  const cases = (of: (node: Node) => string) => nodes.map((node) => `    "${node.path}") echo "${of(node)}" ;;`).join('\n');
  return `_skillet_subcommands() {
  case "$1" in
${cases(names)}
  esac
}
_skillet_options() {
  case "$1" in
${cases(flags)}
  esac
}`;
}

/** The command path typed so far: the words that name subcommands, options and their values skipped. */
const WALK = `  local cmdpath="" word subs
  for word in "\${words[@]:1:$((current - 1))}"; do
    [[ "$word" == -* ]] && continue
    subs=" $(_skillet_subcommands "$cmdpath") "
    if [[ "$subs" == *" $word "* ]]; then cmdpath="\${cmdpath:+$cmdpath }$word"; fi
  done`;

function bash(nodes: Node[]): string {
  return `# skillet completion for bash: source this file, or add to ~/.bashrc:
#   source <(skillet completion bash)
${lookups(nodes)}
_skillet() {
  local words=("\${COMP_WORDS[@]}") current=$COMP_CWORD cur="\${COMP_WORDS[COMP_CWORD]}"
${WALK}
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(_skillet_options "$cmdpath")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(_skillet_subcommands "$cmdpath")" -- "$cur"))
  fi
}
complete -o default -F _skillet skillet
`;
}

function zsh(nodes: Node[]): string {
  // zsh's \`words\` starts at 1 with the command itself; \`path\` is zsh's $PATH, hence cmdpath.
  return `#compdef skillet
# skillet completion for zsh: add to ~/.zshrc (after compinit):
#   source <(skillet completion zsh)
${lookups(nodes)}
_skillet() {
  local cmdpath="" word subs
  for word in "\${(@)words[2,CURRENT-1]}"; do
    [[ "$word" == -* ]] && continue
    subs=" $(_skillet_subcommands "$cmdpath") "
    if [[ "$subs" == *" $word "* ]]; then cmdpath="\${cmdpath:+$cmdpath }$word"; fi
  done
  if [[ "\${words[CURRENT]}" == -* ]]; then
    compadd -- \${=$(_skillet_options "$cmdpath")}
  else
    compadd -- \${=$(_skillet_subcommands "$cmdpath")}
  fi
}
compdef _skillet skillet
`;
}

function fish(nodes: Node[]): string {
  const lines = [
    '# skillet completion for fish: save as ~/.config/fish/completions/skillet.fish, or:',
    '#   skillet completion fish | source',
    'complete -c skillet -f',
    'function __skillet_subcommands',
    '  switch "$argv[1]"',
    ...nodes.map((node) => `    case '${node.path}'\n      echo ${names(node) || "''"}`),
    '  end',
    'end',
    'function __skillet_path',
    '  set -l cmdpath ""',
    '  for word in (commandline -opc)[2..-1]',
    "    string match -q -- '-*' $word; and continue",
    '    if contains -- $word (string split " " (__skillet_subcommands "$cmdpath"))',
    '      set cmdpath (string trim -- "$cmdpath $word")',
    '    end',
    '  end',
    '  echo $cmdpath',
    'end',
  ];
  for (const node of nodes) {
    const at = `-n 'test (__skillet_path) = "${node.path}"'`;
    for (const sub of node.subcommands) lines.push(`complete -c skillet ${at} -a ${sub.name} -d ${quoted(sub.description)}`);
    for (const option of node.options) {
      const long = option.long ? ` -l ${option.long.replace(/^--/, '')}` : '';
      const short = option.short ? ` -s ${option.short.replace(/^-/, '')}` : '';
      lines.push(`complete -c skillet ${at}${long}${short} -d ${quoted(option.description)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

const SHELLS = { bash, zsh, fish } as const;

export function completionCommand(program: Command): void {
  program
    .command('completion <shell>')
    .description("print a completion script for bash, zsh or fish (see the script's first lines to install it)")
    .action((shell: string) => {
      if (!Object.hasOwn(SHELLS, shell)) throw usageError(`completion is for bash, zsh or fish, not "${shell}"`);
      process.stdout.write(SHELLS[shell as keyof typeof SHELLS](nodesOf(program)));
    });
}
