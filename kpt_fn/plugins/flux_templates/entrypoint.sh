# Rendered by expand-trainjobs as the entrypoint of the node container of a Flux TrainJob.
# Arguments: the original trainer command line. The lead broker runs it with `flux run`, the
# other hosts join as follower brokers.

fluxuser=$(whoami)
fluxuid=$(id -u $fluxuser)

# The flux-installer init container copied the Flux view here.
viewbase="/mnt/flux"
viewroot=${viewbase}/view
configroot=${viewbase}/config
software="${viewbase}/software"
viewbin="${viewroot}/bin"
fluxpath=${viewbin}/flux

# Appended, so that the container's own tools (e.g. its Python) win over the view's.
export PATH=$PATH:${viewbin}

cp -R ${viewbase}/software/* /opt/software/

# Flux needs the Python that was built with it.
foundroot=$(find $viewroot -maxdepth 2 -type d -path $viewroot/lib/python3*) > /dev/null 2>&1
pythonversion=$(basename ${foundroot})
pythonversion=${viewroot}/bin/${pythonversion}
echo "Python version: $pythonversion"
echo "Python root: $foundroot"

# Replace the view's python links, which do not survive the copy.
if [[ -f "${pythonversion}" ]]; then
   rm -rf $viewroot/bin/python3
   rm -rf $viewroot/bin/python
   ln -s ${pythonversion} $viewroot/lib/python  || true
   ln -s ${pythonversion} $viewroot/lib/python3 || true
fi

export PYTHONPATH=${PYTHONPATH:-""}:${foundroot}/site-packages
export FLUX_RC_EXTRA=$viewroot/etc/flux/rc1.d

# Helper that switches the scheduler to fluxion.
cat <<EOT >> /tmp/load-fluxion.sh
flux module remove sched-simple
flux module load sched-fluxion-resource
flux module load sched-fluxion-qmanager
EOT
mv /tmp/load-fluxion.sh ${viewbase}/load-fluxion.sh

# Environment file for interactive use of the cluster.
cat <<EOT >> /tmp/flux-view.sh
#!/bin/bash
export PATH=$PATH
export PYTHONPATH=$PYTHONPATH
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-""}:$viewroot/lib
export fluxsocket=local://${configroot}/run/flux/local
EOT
mv /tmp/flux-view.sh ${viewbase}/flux-view.sh

cfg="${configroot}/etc/flux/config"
command="$@"

# The broker expects the CURVE certificate at this path, readable only by the Flux user.
curvepath=/mnt/flux/config/etc/curve/curve.cert
cp /curve/curve.cert ${curvepath}

chmod o-r ${curvepath}
chmod g-r ${curvepath}
chown -R ${fluxuid} ${curvepath}

# Resource set of the cluster: cores (and GPUs) per host.
hosts=$(cat ${configroot}/etc/flux/system/hostlist)
flux R encode --hosts=${hosts} {{ rspec }} > /tmp/R
mv /tmp/R ${configroot}/etc/flux/system/R

export STATE_DIR=${configroot}/var/lib/flux
export FLUX_OUTPUT_DIR=/tmp/fluxout
mkdir -p ${STATE_DIR} ${FLUX_OUTPUT_DIR}

# Host name of the lead broker.
mainHost="{{ main_host }}"
workdir=$(pwd)

mkdir -p ${configroot}/etc/flux/system/cron.d
brokerOptions="-Scron.directory=${configroot}/etc/flux/system/cron.d \
  -Stbon.fanout=256 \
  -Srundir=${configroot}/run/flux  \
  -Sstatedir=${STATE_DIR} -Slocal-uri=local://$configroot/run/flux/local \
  -Slog-stderr-level=0  \
  -Slog-stderr-mode=local"

# Without a command the lead broker just serves the cluster.
run_interactive_cluster() {
    echo "🌀 flux broker --config-path ${cfg} ${brokerOptions}"
    flux broker --config-path ${cfg} ${brokerOptions}
}

if [ "$(hostname)" = "${mainHost}" ]; then

  echo "Command provided is: ${command}"
  if [ -z "${command}" ]; then
    run_interactive_cluster
  else

    flags="{{ flags }}  "
    echo "Flags for flux are ${flags}"
    echo "🌀 flux start  -o --config ${cfg} ${brokerOptions} flux submit ${flags} --quiet --watch ${command}"
	flux start  -o --config ${cfg} ${brokerOptions} flux run ${flags} ${command}
  fi

# Followers retry until the lead broker accepts them and exit when it shuts the cluster down.
else

    echo "🌀 flux start  -o --config ${configroot}/etc/flux/config ${brokerOptions}"

    while true
    do
        flux start -o --config ${configroot}/etc/flux/config ${brokerOptions}
        retval=$?
        if [[ "${retval}" -eq 0 ]] || [[ "false" == "true" ]]; then
             echo "The follower worker exited cleanly. Goodbye!"
             break
        fi
        echo "Return value for follower worker is ${retval}"
        echo "😪 Sleeping 15s to try again..."
        sleep 15
    done
fi

# Completion marker.
touch $viewbase/flux-operator-complete.txt
