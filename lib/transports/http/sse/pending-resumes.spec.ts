import { PendingResumes } from './pending-resumes';

describe('PendingResumes', () => {
  it('tells a resume whether its session ended while it read, and forgets it after', async () => {
    const resumes = new PendingResumes();
    let finish!: (value: string) => void;
    const reading = resumes.during('s1', () => new Promise<string>((resolve) => (finish = resolve)));
    const other = resumes.during('s2', async () => 'other');
    expect(resumes.size).toBe(2);
    resumes.sessionEnded('s1');
    finish('window');
    await expect(reading).resolves.toEqual({ value: 'window', ended: true });
    await expect(other).resolves.toEqual({ value: 'other', ended: false });
    expect(resumes.size).toBe(0);
  });

  it('forgets a resume whose read failed', async () => {
    const resumes = new PendingResumes();
    await expect(resumes.during('s1', () => Promise.reject(new Error('store away')))).rejects.toThrow('store away');
    expect(resumes.size).toBe(0);
    // A session that ended before a resume began does not fail it.
    resumes.sessionEnded('s1');
    await expect(resumes.during('s1', async () => 1)).resolves.toEqual({ value: 1, ended: false });
  });
});
