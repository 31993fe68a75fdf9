import { useRef, useState } from 'preact/hooks';

/** DESIGN §15: the input a run given only files works on (the spec keeps input required). */
export const FILES_ONLY_INPUT = 'See the attached files';
/** DESIGN §15: the most files one run is given. */
export const RUN_FILES_MAX = 100;

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const [value, unit] = bytes < 1024 * 1024 ? [bytes / 1024, 'KB'] : [bytes / (1024 * 1024), 'MB'];
  return `${value.toFixed(value < 10 ? 1 : 0)} ${unit}`;
}

/**
 * Files for a run: dropped on the zone or chosen with the picker, each listed with its
 * size and a remove button. Nothing is uploaded here; the form uploads them when it runs.
 */
export function DropZone({ files, onChange, disabled }: { files: File[]; onChange: (files: File[]) => void; disabled: boolean }) {
  const [dragging, setDragging] = useState(false);
  const picker = useRef<HTMLInputElement>(null);
  const add = (list: FileList | null | undefined) => {
    if (list && list.length > 0) onChange([...files, ...Array.from(list)]);
  };
  return (
    <fieldset
      class={`drop-zone${dragging ? ' drop-zone-active' : ''}`}
      // While the run starts, everything in it waits (the browser disables its buttons).
      disabled={disabled}
      aria-describedby="run-files-hint"
      onDragOver={(event) => {
        // Without this the browser opens a dropped file instead of handing it to the page.
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(event) => {
        event.preventDefault();
        setDragging(false);
        if (!disabled) add(event.dataTransfer?.files);
      }}
    >
      <legend class="drop-zone-label">
        Files <span class="muted">(optional)</span>
      </legend>
      <p id="run-files-hint" class="hint">
        Drop files here or choose them. The run reads them in its uploads folder; with files and no input, the input is “
        {FILES_ONLY_INPUT}”.
      </p>
      <button type="button" onClick={() => picker.current?.click()}>
        Choose files
      </button>
      <input
        ref={picker}
        type="file"
        multiple
        hidden
        onChange={(event) => {
          add(event.currentTarget.files);
          // Cleared, so choosing the same file again adds it again.
          event.currentTarget.value = '';
        }}
      />
      {files.length > 0 && (
        <ul class="drop-zone-files" aria-label="Files for the run">
          {files.map((file, index) => (
            <li key={`${index}-${file.name}`}>
              <span class="drop-zone-name">{file.name}</span>
              <span class="muted">{formatSize(file.size)}</span>
              <button
                type="button"
                aria-label={`Remove ${file.name}`}
                onClick={() => onChange(files.filter((_, at) => at !== index))}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
    </fieldset>
  );
}
