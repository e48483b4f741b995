#!/bin/sh
# A short workload that makes many tracepoints fire.
ls -la /etc > /dev/null
cat /etc/hostname > /dev/null
dd if=/dev/zero of=/tmp/perfpt-trace-wl bs=4k count=64 conv=fsync 2>/dev/null
sync
rm -f /tmp/perfpt-trace-wl
sleep 0.01 &
wait
[ "$1" = light ] && exit 0
sh -c 'trap "exit 0" USR1; kill -USR1 $$; sleep 0.01'
python3 -c 'import os,socket,signal,time,mmap
s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); s.sendto(b"x",("127.0.0.1",9)); s.close()
m=mmap.mmap(-1,1<<20); m[0:4]=b"abcd"; m.close()
os.getpid(); os.getppid(); os.getuid(); os.uname(); os.listdir("/proc/self")
signal.signal(signal.SIGUSR2, lambda *a: None); os.kill(os.getpid(), signal.SIGUSR2)
time.sleep(0.005)
r,w=os.pipe(); os.write(w,b"hi"); os.read(r,2); os.close(r); os.close(w)
pid=os.fork()
if pid==0: os._exit(0)
os.waitpid(pid,0)
' 2>/dev/null
true
