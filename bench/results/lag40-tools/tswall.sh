# usage: tswall.sh TAG SRC [SW]
cd /tmp/lag40
for m in all worker group; do
  SW=$3 PYTHONPATH=$2 PYTHONDONTWRITEBYTECODE=1 python tsw.py --mode $m --namings --factors 1,1.5,1.75,2,2.2,2.5,3,4,5 --out tsw-$m-$1.json > tsw-$m-$1.txt 2>&1
done
