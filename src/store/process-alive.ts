// Whether a process id names a live process: signal 0 checks existence without signalling. EPERM
// means it exists but belongs to another user (alive); ESRCH means gone.

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
