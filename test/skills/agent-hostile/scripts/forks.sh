# Starts far more processes than any run may have, then waits on them.
for i in $(seq 500); do sleep 300 & done 2>/dev/null
wait
