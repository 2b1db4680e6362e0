# Rendered by expand-trainjobs for the flux-installer init container of a Flux TrainJob.
# It lays out the Flux configuration and copies the pre-built Flux view into the shared volume.

fluxroot={{ flux_root }}
mainHost={{ main_host }}

# Configuration goes to the shared volume: /opt/view may be read-only.
installRoot=/mnt/flux/config
echo "Hello I am hostname $(hostname) running setup."

echo "Flux install root: ${fluxroot}"
export fluxroot

export PATH=/opt/view/bin:$PATH

mkdir -p $fluxroot/bin

mkdir -p $installRoot/etc/flux/system/cron.d
mkdir -p $installRoot/var/lib/flux

# Every host needs the host list and the broker configuration.
mkdir -p $installRoot/etc/flux/system
hosts="{{ hosts }}"

echo "${hosts}" > ${installRoot}/etc/flux/system/hostlist

mkdir -p ${installRoot}/etc/flux/config
cat <<EOT >> ${installRoot}/etc/flux/config/broker.toml
{{ broker_toml }}
EOT

echo
echo "🐸 Broker Configuration"
cat ${installRoot}/etc/flux/config/broker.toml

# Run and state directories and the CURVE certificate location must exist before the broker starts.
mkdir -p ${installRoot}/run/flux ${installRoot}/etc/curve

viewroot=/mnt/flux
mkdir -p $viewroot/view

# /opt/view links into the spack view directory; copy its target, and /opt/software that the
# view links to, into the shared volume for the application container.
echo "Moving content from /opt/view to be in shared volume at $viewroot"
view=$(ls /opt/views/._view/)
view="/opt/views/._view/${view}"

cp -R ${view}/* $viewroot/view
cp -R /opt/software $viewroot/

# Marker: the copy is complete.
touch $viewroot/flux-operator-done.txt
echo "Application is done."
