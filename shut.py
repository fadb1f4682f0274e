import socket, time, os, signal, sys, threading
pid=int(sys.argv[1])
body=b'{"device_id":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb","lat":44.4938,"lon":11.3430}'
def req(path='/v1/checkins', method='POST'):
    if method=='POST':
        return b'POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n'%(path.encode(),len(body))+body
    return b'GET %s HTTP/1.1\r\nHost: x\r\n\r\n'%path.encode()
def rd(s,t=8):
    s.settimeout(t); data=b''
    try:
        while True:
            c=s.recv(65536)
            if not c: data+=b'<EOF>'; break
            data+=c
            if b'\r\n\r\n' in data:
                h,_,b=data.partition(b'\r\n\r\n')
                import re
                m=re.search(rb'content-length: (\d+)',h,re.I)
                if m and len(b)>=int(m.group(1)): break
    except Exception as e: data+=('<%s>'%e).encode()
    return data
a=socket.create_connection(('127.0.0.1',9407)); idle=socket.create_connection(('127.0.0.1',9407))
idle.sendall(req('/healthz','GET')); print('idle first:', rd(idle).split(b'\r\n')[0])
a.sendall(req()); time.sleep(0.3); t=time.time(); os.kill(pid, signal.SIGHUP)
r=rd(a); print('in-flight answer after %.2fs:'%(time.time()-t)); print(r.decode(errors='replace'))
try:
    a.sendall(req('/healthz','GET')); print('second on same conn:', rd(a,3)[:200])
except Exception as e: print('second send failed', e)
try:
    idle.sendall(req('/healthz','GET')); print('idle conn after signal:', rd(idle,3)[:300])
except Exception as e: print('idle send failed', e)
try:
    n=socket.create_connection(('127.0.0.1',9407)); n.sendall(req('/healthz','GET')); print('new conn:', rd(n,3)[:300])
except Exception as e: print('new conn failed', e)
